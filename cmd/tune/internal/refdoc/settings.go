package refdoc

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/command"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/backend/weaviate"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
)

// bounds is a numeric setting's range as Load checks it: lo and hi as
// written in a settings file, each end open or closed. The test checks
// both ends and one step beyond each.
type bounds struct {
	lo, hi         string
	loOpen, hiOpen bool
}

// setting documents one settings key. The keys are the settings struct's
// (TestSettingsTableComplete holds them equal); the default is
// settings.Defaults()'s when it has one, else def.
type setting struct {
	key    string
	def    string  // default when settings.Defaults() has none ("" for none)
	values string  // the values or range, when not bounds
	rng    *bounds // the range Load checks
	ctx    string  // YAML holding the key for the range test, "%s" for its value; "" derives it from the key
	doc    string
}

func closed(lo, hi string) *bounds { return &bounds{lo: lo, hi: hi} }

// settingsTable is every settings key, in the order of the page.
var settingsTable = []setting{
	// dataset
	{key: "dataset.id", doc: "the dataset's name: the label store's key and what `dataset_id` picks in `datasets`; default the golden set's file name without its extension (`demo` for the shipped demo)"},
	{key: "dataset.path", def: "the shipped demo", doc: "the golden set: a native JSON or YAML file, TREC topics (with `dataset.judgments`) or a BEIR folder ([golden sets](../golden-sets.md))"},
	{key: "dataset.format", values: "`native`, `trec`, `beir`, or empty to detect", doc: "the golden set's format"},
	{key: "dataset.judgments", doc: "a separate judgments file (TREC qrels or JSONL) for TREC topics"},
	{key: "dataset.corpus", doc: "the corpus judged document ids and passages resolve against (BEIR `corpus.jsonl`, JSONL or a folder of .md/.txt); default a BEIR folder's own, else the engine's `corpus.path`"},
	{key: "dataset.qrels_split", def: experiments.DefaultBEIRSplit, doc: "the qrels file of a BEIR folder read (`qrels/<split>.tsv`)"},
	{key: "dataset.split", def: "`all`; `dev` from 100 judged queries", values: "`all`, `dev`, `test`", doc: "the part evaluated: `dev` tunes on the dev part and confirms the winner on the held-out test part ([select, then confirm](../results.md#select-then-confirm))"},
	{key: "dataset.split_seed", def: strconv.FormatInt(experiments.DefaultSplitSeed, 10), values: "any integer", doc: "which queries land in dev (the split is seeded and stratified by category)"},
	{key: "dataset.dev_fraction", def: strconv.FormatFloat(experiments.DefaultDevFraction, 'g', -1, 64), rng: closed("0", "1"), ctx: "dataset: {path: golden.json, dev_fraction: %s}", doc: "each category's share of dev; above 0 with `split: dev`, below 1 with `split: test`"},
	{key: "dataset.grades.max", def: "the data's top grade, at least 3", rng: closed("1", "100"), ctx: "dataset: {path: golden.json, grades: {max: %s}}", doc: "the top grade of the scale ([grade scales](../golden-sets.md#grade-scales))"},
	{key: "dataset.grades.map", doc: "rewrites every integer grade as it is loaded (`{1: 4, 2: 3, 3: 2, 4: 1}` for a scale where 1 is best); a grade it does not list is an error; file only"},
	{key: "dataset.grades.relevant", def: "1", values: "1 <= relevant <= strong <= exact <= max", doc: "the lowest grade the binary measures count (trec_eval's `-l`)"},
	{key: "dataset.grades.strong", def: "ceil(2·max/3)", values: "as relevant", doc: "the lowest grade the Strong measures count"},
	{key: "dataset.grades.exact", def: "max", values: "as relevant", doc: "the lowest grade the Exact measures count"},
	{key: "dataset.allow_missing_docs", def: "false", values: "`true`, `false`", doc: "`true` scores a golden set whose judged ids are missing from the corpus, with a warning, instead of refusing it"},
	{key: "dataset.labels", doc: "a label store (SQLite file or `postgres://` URL) whose labels are merged into the judgments ([judging](../judging.md))"},
	{key: "dataset.max_bytes", def: strconv.Itoa(experiments.DefaultMaxBytes), rng: closed(strconv.Itoa(experiments.MinMaxBytes), strconv.Itoa(experiments.MaxMaxBytes)), ctx: "dataset: {path: golden.json, max_bytes: %s}", doc: "the largest file of a golden set read (each file: the set, its judgments, a BEIR folder's files); a larger one is refused before it is read ([limits](../guarantees.md#size-limits))"},
	{key: "dataset.max_line_bytes", def: strconv.Itoa(experiments.DefaultMaxLineBytes), rng: closed(strconv.Itoa(experiments.MinMaxBytes), strconv.Itoa(experiments.MaxMaxLineBytes)), ctx: "dataset: {path: golden.json, max_line_bytes: %s}", doc: "the longest line of a line-based golden-set file (JSONL, TSV, qrels) and the longest query text"},
	{key: "dataset.max_queries", def: strconv.Itoa(experiments.DefaultMaxQueries), rng: closed("1", strconv.Itoa(experiments.MaxMaxQueries)), ctx: "dataset: {path: golden.json, max_queries: %s}", doc: "the most queries a golden set may hold"},
	{key: "datasets", doc: "named golden sets, each with the keys of `dataset` and a unique `id`; `dataset_id` picks one"},
	{key: "dataset_id", doc: "the `datasets` entry a command evaluates (also `--dataset-id`)"},
	// backend
	{key: "backend.kind", values: "`embedded`, `process`, `http`, `postgres`, `weaviate`, `command`, `lancedb`", doc: "how trials reach the search service ([engines](../engines/README.md))"},
	{key: "backend.engine", doc: "the embedded engine's config keys every trial starts from ([engine config](engine-config.md))"},
	{key: "backend.config", doc: "the production config `--apply-best` and `tune apply` write ([promotion](../promotion.md)); created by the first promotion when missing"},
	{key: "backend.start_timeout", rng: &bounds{lo: "0s", hi: "1h", loOpen: true}, doc: "how long a (re)start may take until the health check answers"},
	{key: "backend.stop_timeout", rng: &bounds{lo: "0s", hi: "10m", loOpen: true}, doc: "how long a stop may take before the process is killed"},
	{key: "backend.settle", rng: closed("0s", "10m"), doc: "wait after the service answers its health check"},
	{key: "backend.command", doc: "process kind: the service's argv (`{config}` is the rendered config file); command kind: the search program's argv with `{query}`, `{k}` and `{PARAM}` placeholders"},
	{key: "backend.restart", doc: "http kind: the argv that restarts the service on its rewritten config"},
	{key: "backend.template", doc: "process and http kinds: the config file's Go text/template, rendered per trial"},
	{key: "backend.health_url", doc: "process and http kinds: polled until it answers 2xx"},
	{key: "backend.search.url", doc: "the search request's URL (a template: `.query`, `.k`, `.vector`, `params.NAME`)"},
	{key: "backend.search.method", def: "POST", values: "`GET`, `POST`, `PUT`", doc: "the search request's method"},
	{key: "backend.search.body", doc: "the search request's JSON body (a template, values JSON-escaped)"},
	{key: "backend.search.content_type", def: "application/json", doc: "the body's content type"},
	{key: "backend.search.headers_env", doc: "request headers, each naming the environment variable holding its value (never the value)"},
	{key: "backend.search.hits", doc: "the gjson path of the response's array of hits (required)"},
	{key: "backend.search.id", doc: "the path of a hit's document id (required)"},
	{key: "backend.search.chunk_id", doc: "the path of a hit's chunk id"},
	{key: "backend.search.score", doc: "the path of a hit's score (a number or a numeric string)"},
	{key: "backend.search.text", doc: "the path of a hit's excerpt"},
	{key: "backend.search.routing", doc: "the path of the response's routing label"},
	{key: "backend.search.candidates", doc: "per retriever, the path of its raw candidate list (for replay)"},
	{key: "backend.search.candidate_id", def: "`id`", doc: "a candidate's id, relative to a candidate"},
	{key: "backend.search.candidate_doc_id", def: "`doc_id`", doc: "a candidate's document id"},
	{key: "backend.search.candidate_score", def: "`score`", doc: "a candidate's raw score"},
	{key: "backend.vectors.model", doc: "gives process and http searches `.vector`, the query embedded by this embedder (`lsa-<dim>`, `hash-<dim>`, `openai:<model>`, `file:<path>`)"},
	{key: "backend.vectors.corpus", def: "the dataset's corpus", doc: "the corpus an lsa model is fitted on"},
	{key: "backend.vectors.chunk_size", def: "0", doc: "chunking of that corpus, as `tune serve` cuts it (0: whole documents)"},
	{key: "backend.vectors.chunk_overlap", def: "0", doc: "chunk overlap of that corpus"},
	{key: "backend.vectors.base_url", doc: "the `openai:` server's base URL"},
	{key: "backend.vectors.api_key_env", def: "OPENAI_API_KEY", doc: "the variable holding the `openai:` key"},
	{key: "backend.postgres.url", doc: "`postgres://USER@HOST:PORT/DB` (no password in it) ([PostgreSQL](../engines/postgres.md))"},
	{key: "backend.postgres.password_env", def: "PGPASSWORD", doc: "the variable holding the password"},
	{key: "backend.postgres.corpus", def: "the dataset's corpus", doc: "the corpus loaded into the tables"},
	{key: "backend.postgres.model", def: postgres.DefaultModel, doc: "the embedder documents and queries are embedded with"},
	{key: "backend.postgres.text_config", def: postgres.DefaultTextConfig, doc: "the `to_tsvector` configuration"},
	{key: "backend.postgres.chunk_size", def: "0", doc: "default `chunk.size` (0: whole documents)"},
	{key: "backend.postgres.chunk_overlap", def: "0", doc: "default `chunk.overlap`"},
	{key: "backend.postgres.ef_search", def: strconv.Itoa(postgres.DefaultEFSearch), values: fmt.Sprintf("40–%d, at least every trial's depth", postgres.MaxDepth), doc: "`hnsw.ef_search` set by every search"},
	{key: "backend.postgres.prefix", def: postgres.DefaultPrefix, doc: "the prefix of the tables a sweep creates"},
	{key: "backend.postgres.function", def: postgres.DefaultFunction, doc: "the SQL function a promotion (re)creates"},
	{key: "backend.postgres.attach.table", doc: "your table, tuned in place (read only; [attach mode](../engines/postgres.md#attach-to-your-table))"},
	{key: "backend.postgres.attach.id", doc: "its document id column"},
	{key: "backend.postgres.attach.text", doc: "a text column, searched by `to_tsvector` at query time (or `tsvector`)"},
	{key: "backend.postgres.attach.tsvector", doc: "a `tsvector` column (or `text`)"},
	{key: "backend.postgres.attach.vector", doc: "its `vector` column, searched by cosine distance (`<=>`)"},
	{key: "backend.postgres.attach.text_config", def: postgres.DefaultTextConfig, doc: "the `plainto_tsquery` configuration"},
	{key: "backend.postgres.attach.bm25_sql", doc: "your lexical leg's SQL instead: `(id, score)` best first; `$1` query text, `$3` depth"},
	{key: "backend.postgres.attach.dense_sql", doc: "your vector leg's SQL instead: `(id, score)` best first; `$2` query vector, `$3` depth"},
	{key: "backend.postgres.attach.query_vectors", values: "`file:<path>`, `openai:<model>`", doc: "the queries' vectors: precomputed (keyed by query text) or from an OpenAI-compatible endpoint"},
	{key: "backend.postgres.attach.base_url", doc: "the endpoint of `openai:<model>`"},
	{key: "backend.postgres.attach.api_key_env", doc: "the variable holding its API key"},
	{key: "backend.postgres.attach.function", doc: "a function a promotion (re)creates over your table (none: the parameters file only)"},
	{key: "backend.weaviate.bin", doc: "a `weaviate-server` binary the kind starts, restarts and stops ([Weaviate](../engines/weaviate.md))"},
	{key: "backend.weaviate.url", doc: "a running Weaviate server (instead of `bin`)"},
	{key: "backend.weaviate.max_results", def: strconv.Itoa(weaviate.DefaultMaxResults), doc: "that server's `QUERY_HYBRID_MAXIMUM_RESULTS` (url only)"},
	{key: "backend.weaviate.model", def: "lsa-256", doc: "the embedder of documents and queries"},
	{key: "backend.weaviate.corpus", def: "the dataset's corpus", doc: "the corpus loaded"},
	{key: "backend.weaviate.index_type", def: "hnsw", values: "`hnsw`, `flat`", doc: "the vector index"},
	{key: "backend.weaviate.class_prefix", def: "Fusiontune", doc: "the prefix of the classes the kind creates"},
	{key: "backend.weaviate.class", doc: "attach to this existing class of `url`, read-only: only query-time parameters are tuned ([attach](../engines/weaviate.md#attach-to-your-class))"},
	{key: "backend.weaviate.id_property", def: "doc_id", doc: "the attached class's property holding the document id"},
	{key: "backend.weaviate.query_vectors", def: "the class's vectorizer", values: "`openai:<model>`, `file:<path>`, `lsa-<dim>`, `hash-<dim>`", doc: "how the attached class's query vectors are made"},
	{key: "backend.weaviate.base_url", doc: "the `openai:` server's base URL"},
	{key: "backend.weaviate.api_key_env", def: "OPENAI_API_KEY", doc: "the variable holding the `openai:` key"},
	{key: "backend.lancedb.sidecar", doc: "the kind's sidecar directory, `backend/lancedb/sidecar` after `npm ci` ([LanceDB](../engines/lancedb.md))"},
	{key: "backend.lancedb.node", def: "node", doc: "the Node.js executable that runs the sidecar"},
	{key: "backend.lancedb.uri", doc: "attach: your LanceDB database directory (with `table`)"},
	{key: "backend.lancedb.table", doc: "attach: your table, opened and never changed (unset: a sandbox table per embedder in the run)"},
	{key: "backend.lancedb.id_column", def: "id", doc: "attach: the document id column"},
	{key: "backend.lancedb.text_column", def: "text", doc: "attach: the column your FTS index covers"},
	{key: "backend.lancedb.vector_column", def: "vector", doc: "attach: the vector column"},
	{key: "backend.lancedb.distance", def: "cosine (sandbox), l2 (attach)", values: "`l2`, `cosine`, `dot`", doc: "the vector leg's `distanceType`"},
	{key: "backend.lancedb.model", doc: "the embedder of queries (and of a sandbox's documents); attach: the model that made your vectors (`openai:`, `file:`)"},
	{key: "backend.lancedb.corpus", def: "the dataset's corpus", doc: "sandbox: the corpus loaded"},
	{key: "backend.lancedb.base_url", doc: "the `openai:` server's base URL"},
	{key: "backend.lancedb.api_key_env", def: "OPENAI_API_KEY", doc: "the variable holding the `openai:` key"},
	{key: "backend.command_options.timeout", def: command.DefaultTimeout.String(), rng: closed("0s", "10m"), ctx: "backend: {kind: command, command: [echo, \"{query}\"], command_options: {timeout: %s, regex: \"(?P<id>\\\\S+)\"}}", doc: "command kind: per query, 0 for the default; the process is killed after it"},
	{key: "backend.command_options.concurrency", def: strconv.Itoa(command.DefaultConcurrency), rng: closed("0", "64"), ctx: "backend: {kind: command, command: [echo, \"{query}\"], command_options: {concurrency: %s, regex: \"(?P<id>\\\\S+)\"}}", doc: "command kind: processes at once, 0 for the default"},
	{key: "backend.command_options.regex", doc: "command kind: reads the program's output, one hit a match (group `id`, optional `score`, `text`); without it the output is JSON read through `backend.search`"},
	// score
	{key: "score.primary", values: "`default`, a metric, or a weighted sum such as `0.5*NDCG@10+0.5*Recall@20`", doc: "the score trials are ranked by ([metrics](metrics.md))"},
	{key: "score.metrics", def: "the leaderboard's columns", doc: "metrics reported beside the primary score"},
	{key: "score.constraints", doc: "gates (`latency.p95 <= 40ms`, `Recall@10 >= 0.8`) a trial must pass to win ([latency](../results.md#latency))"},
	{key: "score.constrain_sampler", values: "`true`, `false`", doc: "tell a search study's sampler the trials missing a constraint as worse than any meeting them"},
	// eval
	{key: "eval.concurrency", rng: closed("1", "256"), doc: "queries in flight"},
	{key: "eval.timeout", rng: &bounds{lo: "0s", hi: "1h", loOpen: true}, doc: "per query"},
	{key: "eval.retries", rng: closed("0", "10"), doc: "more attempts of a failed query"},
	{key: "eval.k", rng: closed("1", "10000"), doc: "hits asked for per query"},
	{key: "eval.failure_budget", rng: closed("0", "1000000"), doc: "failed trials that stop a sweep (0: no budget)"},
	{key: "eval.max_consecutive_failures", rng: closed("0", "1000000"), doc: "trials in a row failing with the same error that stop a sweep (0: never)"},
	{key: "eval.on_query_error", values: "`fail`, `zero`, `skip`", doc: "what a query still failing after its retries does: fail its trial, score 0, or be left out"},
	{key: "runs_dir", values: "not blank", doc: "where runs are recorded, one directory each"},
	// stats
	{key: "stats.correction", values: "`holm`, `bh`, `none`", doc: "the multiple-comparison correction ([statistics](../results.md#statistics))"},
	{key: "stats.alpha", rng: &bounds{lo: "0", hi: "1", loOpen: true, hiOpen: true}, doc: "the significance level"},
	{key: "stats.level", rng: &bounds{lo: "0", hi: "1", loOpen: true, hiOpen: true}, doc: "the bootstrap intervals' level"},
	{key: "stats.resamples", rng: closed("1000", "100000"), doc: "bootstrap resamples"},
	{key: "stats.permutations", rng: closed("100", "100000"), doc: "sign flips of the randomization test (exact up to 16 pairs)"},
	{key: "stats.min_category_queries", rng: closed("2", "1000000"), doc: "fewer queries in a category give no interval, a warning"},
	{key: "stats.min_nonzero_pairs", rng: closed("1", "1000000"), doc: "fewer non-zero paired differences give `?`, too few to test"},
	{key: "stats.seed", def: "the experiment file's seed", values: "any integer", doc: "the seed of the bootstrap and the randomization test"},
	{key: "stats.metrics", doc: "metrics compared with the baseline besides the primary score"},
	{key: "gates", doc: "`METRIC[CATEGORY] OP NUMBER` or `... OP ref - D`, checked on the winner; a failing gate exits 1 and stops a promotion ([gates](../promotion.md#gates))"},
	{key: "promotion.guarded", doc: "categories whose primary score must not drop by more than the tolerance"},
	{key: "promotion.tolerance", rng: closed("0", "1"), doc: "the drop a guarded category may take"},
	{key: "promotion.require_robust_winner", def: "false", values: "`true`, `false`", doc: "`true`: tune apply and --apply-best refuse a winner that another judge's labels would not rank first, or that leads in under 90% of label resamples ([judging](../judging.md#a-winner-every-judge-agrees-on))"},
	{key: "latency.finalists", rng: closed("0", "1000"), doc: "the best trials measured again after the sweep (0: none)"},
	{key: "latency.repeats", rng: closed("1", "20"), doc: "passes over the queries per finalist"},
	// judge
	{key: "judge.url", doc: "the OpenAI-compatible server's base URL ([judging](../judging.md))"},
	{key: "judge.model", doc: "the model name sent with each call"},
	{key: "judge.api_key_env", doc: "the variable holding the API key (none: no key sent)"},
	{key: "judge.prompt", def: settings.DefaultJudgePrompt, values: "`graded`, `hpn`, or a template file", doc: "the prompt"},
	{key: "judge.rubrics", values: "a map of category to text", doc: "the rubric a template file shows for a query of that category (`{{.Rubric}}`, [judging](../judging.md#context-for-the-judge))"},
	{key: "judge.max_grade", def: strconv.Itoa(settings.DefaultJudgeMaxGrade), rng: closed("1", "100"), ctx: "judge: {prompt: prompt.tmpl, max_grade: %s}", doc: "a template file's top grade"},
	{key: "judge.batch", def: strconv.Itoa(llm.DefaultBatch), rng: closed("1", strconv.Itoa(llm.MaxBatch)), doc: "documents graded per call"},
	{key: "judge.concurrency", def: strconv.Itoa(llm.DefaultConcurrency), rng: closed("1", strconv.Itoa(llm.MaxConcurrency)), doc: "calls at once (`--concurrency`)"},
	{key: "judge.timeout", def: shortDuration(llm.DefaultTimeout), rng: &bounds{lo: "0s", hi: shortDuration(llm.MaxTimeout), loOpen: true}, doc: "per call"},
	{key: "judge.retries", def: strconv.Itoa(llm.DefaultRetries), rng: closed("0", strconv.Itoa(llm.MaxRetries)), doc: "more attempts of a call that failed transiently (429, 5xx, timeouts)"},
	{key: "judge.answer_retries", def: strconv.Itoa(llm.DefaultAnswerRetries), rng: closed("0", strconv.Itoa(llm.MaxAnswerRetries)), doc: "more asks, with backoff and a note saying what was wrong, of an answer that is malformed (prose, a document missing, a grade off the scale); the pairs of one still malformed are skipped with a warning ([judging](../judging.md#an-llm-judge))"},
	{key: "judge.max_doc_chars", def: strconv.Itoa(llm.DefaultMaxDocChars), rng: closed(strconv.Itoa(llm.MinMaxDocChars), strconv.Itoa(llm.MaxMaxDocChars)), doc: "a document's title and text are cut to this many characters"},
	{key: "judge.seed", def: "1", values: "any integer", doc: "the order documents are shown in"},
	{key: "judge.budget.calls", def: "0 (no bound)", rng: closed("0", strconv.FormatInt(settings.MaxJudgeBudget, 10)), doc: "most calls per `tune judge run` (`--budget-calls`)"},
	{key: "judge.budget.tokens", def: "0 (no bound)", rng: closed("0", strconv.FormatInt(settings.MaxJudgeBudget, 10)), doc: "most tokens per `tune judge run` (`--budget-tokens`)"},
	{key: "judge.ensemble.vote", def: "`" + settings.DefaultEnsembleVote + "`", values: "`majority`, `mean`", doc: "how `--judge ensemble` combines its members' grades: the most given (a tie: the lower grade) or the mean rounded, a half down ([judging](../judging.md#judge-ensembles))"},
	{key: "judge.ensemble.members", values: "a list of at least two judges", doc: "each `{file: QRELS}` or the LLM judge above with any of `url`, `model`, `api_key_env`, `prompt` replaced; they share `judge.budget`"},
	{key: "labels", def: settings.DefaultLabelsFile + " beside the settings file", doc: "the label store of the judge commands: a SQLite file or `postgres://` URL"},
}

// shortDuration writes d without zero units: 2m, not 2m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// SettingsKeys are the keys of the settings struct, as a settings file
// writes them (a struct's fields joined by dots; backend.engine, maps and
// lists are one key each).
func SettingsKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if strings.Contains(opts, "squash") {
				walk(f.Type, prefix)
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Duration]() {
				walk(ft, prefix+name+".")
				continue
			}
			keys = append(keys, prefix+name)
		}
	}
	walk(reflect.TypeFor[settings.Settings](), "")
	return keys
}

// settingDefault is a key's default: settings.Defaults()'s, else the
// table's.
func settingDefault(s setting) string {
	d, ok := settings.Defaults()[s.key]
	if !ok {
		return s.def
	}
	switch v := d.(type) {
	case time.Duration:
		return shortDuration(v)
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// rangeText writes a range: "1–256", "(0, 1)", "(0, 1h]".
func (b bounds) String() string {
	if !b.loOpen && !b.hiOpen {
		return thousands(b.lo) + "–" + thousands(b.hi)
	}
	open, shut := "[", "]"
	if b.loOpen {
		open = "("
	}
	if b.hiOpen {
		shut = ")"
	}
	return open + thousands(b.lo) + ", " + thousands(b.hi) + shut
}

// thousands writes an integer's digits in groups of three.
func thousands(s string) string {
	if _, err := strconv.ParseInt(s, 10, 64); err != nil || len(s) <= 4 {
		return s
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}

// envName is the environment variable that sets key, "" for none.
func envName(key string) string {
	if !slices.Contains(settings.EnvKeys, key) {
		return ""
	}
	return settings.EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// settingsPage is the table of every settings key.
func settingsPage() (string, error) {
	keys := SettingsKeys()
	var documented []string
	for _, s := range settingsTable {
		documented = append(documented, s.key)
	}
	a, b := slices.Clone(keys), slices.Clone(documented)
	sort.Strings(a)
	sort.Strings(b)
	if !slices.Equal(a, b) {
		return "", fmt.Errorf("the settings struct's keys and the page's differ (TestSettingsTableComplete lists how)")
	}
	var out strings.Builder
	out.WriteString(`# Settings

` + "`tune.yaml`" + ` in the working directory (or ` + "`--config FILE`" + `) holds the
settings; ` + "`FUSIONTUNE_*`" + ` environment variables override the file and flags
override both: defaults < file < environment < flags. Relative paths in
the file resolve against the file's own directory; paths from flags and
the environment against the working directory. Every value is checked
before any work starts: a problem names its place (` + "`file:line:col`" + `, the
variable or the flag), the key and what was expected (exit 2).
` + "`tune check tune.yaml`" + ` checks a settings file alone, and ` + "`tune init`" + `
writes a commented one.

Numbers are written in plain decimal (no ` + "`0x`" + `, ` + "`_`" + ` or ` + "`+`" + `; ` + "`4.7`" + `
is not an integer), durations with a unit (` + "`30s`" + `, not ` + "`30`" + `), booleans as
` + "`true`" + ` or ` + "`false`" + ` (a variable may also say ` + "`1`" + `/` + "`0`" + `). The ranges
below are checked at both ends by the tests.

`)
	t := newTable("key", "default", "range / values", "environment", "meaning")
	for _, s := range settingsTable {
		values := s.values
		if s.rng != nil {
			values = s.rng.String()
		}
		def := settingDefault(s)
		if def == "" {
			def = "—"
		} else if !strings.Contains(def, "`") && !strings.Contains(def, " ") {
			def = code(def)
		}
		env := envName(s.key)
		if env != "" {
			env = code(env)
		}
		t.row(code(s.key), def, values, env, s.doc)
	}
	out.WriteString(t.String())
	return out.String(), nil
}

// DocumentedSettings are the keys the settings page documents.
func DocumentedSettings() []string {
	var keys []string
	for _, s := range settingsTable {
		keys = append(keys, s.key)
	}
	return keys
}

// Range is a documented settings range, for the test that checks it.
type Range struct {
	Key, Lo, Hi    string
	LoOpen, HiOpen bool
	Float          bool   // a number that need not be an integer
	Text           string // as the page writes it
	ctx            string
}

// YAML is a settings file setting the range's key to v.
func (r Range) YAML(v string) string {
	if r.ctx != "" {
		return fmt.Sprintf(r.ctx, v) + "\n"
	}
	parts := strings.Split(r.Key, ".")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(strings.Repeat("  ", i) + p + ":")
		if i < len(parts)-1 {
			b.WriteString("\n")
		}
	}
	return b.String() + " " + v + "\n"
}

// floatKeys are the ranged settings that take any number, not only
// integers.
var floatKeys = []string{"dataset.dev_fraction", "stats.alpha", "stats.level", "promotion.tolerance"}

// SettingRanges are the ranges the settings page documents.
func SettingRanges() []Range {
	var out []Range
	for _, s := range settingsTable {
		if s.rng != nil {
			out = append(out, Range{Key: s.key, Lo: s.rng.lo, Hi: s.rng.hi, LoOpen: s.rng.loOpen, HiOpen: s.rng.hiOpen,
				Float: slices.Contains(floatKeys, s.key), Text: s.rng.String(), ctx: s.ctx})
		}
	}
	return out
}
