package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

var (
	searchcliOnce sync.Once
	searchcliBin  string
	searchcliErr  error
)

// searchcli builds testdata/searchcli, a command-line search program (see
// its doc comment), once.
func searchcli(t *testing.T) string {
	t.Helper()
	searchcliOnce.Do(func() {
		dir := filepath.Dir(tuneBinary(t)) // removed by TestMain
		searchcliBin = filepath.Join(dir, "searchcli")
		out, err := exec.Command("go", "build", "-o", searchcliBin, "./testdata/searchcli").CombinedOutput()
		if err != nil {
			searchcliErr = err
			searchcliBin = string(out)
		}
	})
	if searchcliErr != nil {
		t.Fatalf("go build searchcli: %v\n%s", searchcliErr, searchcliBin)
	}
	return searchcliBin
}

// runningService is a `tune serve` the test starts on its own config file,
// as someone else's service the check must not touch.
type runningService struct {
	addr, config string
	bytes        []byte
	mtime        time.Time
	cmd          *exec.Cmd
}

func startService(t *testing.T, e *sweepEnv) *runningService {
	t.Helper()
	s := &runningService{addr: freeAddr(t)}
	s.bytes = []byte("# the search team's config: hand written, with comments\ncorpus:   {path: \"" +
		absPath(t, "../../experiments/demo/corpus.jsonl") + "\"}\ncache_dir: " + filepath.Join(e.dir, ".cache", "engine") +
		"\ndense:\n  model: hash-384   # keep\nfusion: {method: rrf, k: 60}\n")
	s.config = e.write("search.yaml", string(s.bytes))
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(s.config, old, old); err != nil {
		t.Fatal(err)
	}
	s.mtime = old
	s.cmd = exec.Command(tuneBinary(t), "serve", "--config", s.config, "--listen", s.addr)
	s.cmd.Dir, s.cmd.Env = e.dir, e.env
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.cmd.Wait()
	})
	waitHealthy(t, "http://"+s.addr+"/healthz")
	return s
}

// untouched fails unless the service's config has its bytes and mtime and
// the service is still the process the test started.
func (s *runningService) untouched(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(s.config)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, s.bytes) {
		t.Errorf("the service's config changed:\n%s", data)
	}
	st, err := os.Stat(s.config)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(s.mtime) {
		t.Errorf("the service's config mtime is %v, want %v", st.ModTime(), s.mtime)
	}
	if err := s.cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the service process is gone: %v", err)
	}
}

// checkQuality runs tune check-quality --format json with args and
// returns the quality summary.
func (e *sweepEnv) checkQuality(code int, args ...string) (runs.Quality, string) {
	e.t.Helper()
	stdout, stderr := e.mustRun(code, append([]string{"check-quality", "--format", "json"}, args...)...)
	var q runs.Quality
	if err := json.Unmarshal([]byte(stdout), &q); err != nil {
		e.t.Fatalf("check-quality stdout is not a quality summary: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return q, stderr
}

// TestCheckQualityReadOnlyAndCommand evaluates a running tune serve
// through a read-only http backend (its config file's bytes and mtime
// untouched, the process the same), then the same golden set through the
// command kind calling a program that prints the service's results on
// stdout (as lines read by a regex, and as JSON read by paths): all three
// give the same scorecard, per category and difficulty, and routing.
func TestCheckQualityReadOnlyAndCommand(t *testing.T) {
	e := newSweepEnv(t, "")
	svc := startService(t, e)
	cli := searchcli(t)
	url := "http://" + svc.addr + "/search"
	settings := map[string]string{
		"http": "runs_dir: runs\nbackend:\n  kind: http\n  health_url: http://" + svc.addr + "/healthz\n  search:\n    url: " + url +
			"\n    body: '{\"query\": {{ .query }}, \"k\": {{ .k }}}'\n    hits: hits\n    id: doc_id\n    score: score\n    text: text\n    routing: routing\n",
		"command regex": "runs_dir: runs\nbackend:\n  kind: command\n  command: [" + cli + ", http, " + url + ", \"{query}\", \"{k}\"]\n" +
			"  command_options:\n    timeout: 20s\n    concurrency: 3\n    regex: 'doc://(?P<id>\\S+) score=(?P<score>\\S+)'\n",
		"command json": "runs_dir: runs\nbackend:\n  kind: command\n  command: [" + cli + ", json, " + url + ", \"{query}\", \"{k}\"]\n" +
			"  search: {hits: results, id: uri, score: score, text: snippet}\n",
	}
	var want *runs.Quality
	for _, name := range []string{"http", "command regex", "command json"} {
		t.Run(name, func(t *testing.T) {
			e.write("tune.yaml", settings[name])
			q, stderr := e.checkQuality(0)
			svc.untouched(t)
			if name == "http" && !strings.Contains(stderr, "read-only") {
				t.Errorf("stderr does not say the backend is read-only:\n%s", stderr)
			}
			if q.Queries == 0 || q.Primary <= 0 || len(q.Categories) == 0 || len(q.Difficulties) == 0 || q.Routing == nil || len(q.RoutingByCategory) == 0 {
				t.Fatalf("incomplete scorecard: %+v", q)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "runs", q.Run, "leaderboard.json")); err != nil {
				t.Errorf("the check's run has no leaderboard: %v", err)
			}
			if want == nil {
				want = &q
				return
			}
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"primary", q.Primary, want.Primary}, {"scorecard", q.Scorecard, want.Scorecard}, {"categories", q.Categories, want.Categories},
				{"difficulties", q.Difficulties, want.Difficulties}, {"routing", *q.Routing, *want.Routing}, {"routing by category", q.RoutingByCategory, want.RoutingByCategory},
				{"failures", q.FailureCount, want.FailureCount},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s = %v, the http backend's %v", c.what, c.got, c.want)
				}
			}
		})
	}
	// The failure report: expected passage, best rank (or none), the top 3
	// with their text (the service's excerpts through search.text).
	if want == nil || want.FailureCount == 0 {
		t.Fatal("no failures to report on the demo")
	}
	f := want.Failures[0]
	if len(f.Expected) == 0 || len(f.Top) != 3 || f.Top[0].Text == "" || len(f.Reasons) == 0 {
		t.Errorf("failure report incomplete: %+v", f)
	}
}

// TestCheckQualityRegexWithoutCorpus evaluates a golden set of
// doc_id_pattern judgments with no corpus through the command kind: the
// patterns match the ids the program returns, each counting once ("at
// least one match"), so the metrics are the hand-computed ones.
func TestCheckQualityRegexWithoutCorpus(t *testing.T) {
	e := newSweepEnv(t, "")
	canned := e.write("canned.json", `{"alpha": ["doc://a/1", "doc://b/2", "doc://a/3"], "beta": ["doc://x/1", "doc://c/9"], "gamma": ["doc://z/1"]}`)
	e.write("golden.json", `{"queries": [
  {"id": "q1", "query": "alpha", "category": "one", "expected_passages": [{"doc_id_pattern": "doc://a/.*", "relevance": 3}, {"doc_id_pattern": "doc://c/.*", "relevance": 1}]},
  {"id": "q2", "query": "beta", "category": "one", "expected_passages": [{"doc_id_pattern": "doc://c/[0-9]+", "relevance": 2}]},
  {"id": "q3", "query": "gamma", "category": "two", "expected_passages": [{"doc_id_pattern": "doc://a/.*", "relevance": 3}]}
]}
`)
	e.write("tune.yaml", "runs_dir: runs\ndataset: {path: golden.json}\nscore: {metrics: [MRR@10, Recall@20, P@10]}\nbackend:\n  kind: command\n  command: ["+
		searchcli(t)+", canned, "+canned+", \"{query}\", \"{k}\"]\n  command_options: {regex: '(?m)^\\d+\\. (\\S+)$'}\n")
	q, _ := e.checkQuality(0)
	// q1: a/1 matches the grade-3 pattern (rank 1), a/3 is a second match
	// (unjudged), the grade-1 pattern is not found: RR 1, recall 1/2.
	// q2: c/9 at rank 2: RR 1/2, recall 1. q3: no match: RR 0, recall 0.
	for m, v := range map[string]float64{"MRR@10": 0.5, "Recall@20": 0.5, "P@10": 0.2 / 3} {
		if got := q.Scorecard[m]; runs.Round(got) != runs.Round(v) {
			t.Errorf("%s = %v, want %v", m, got, v)
		}
	}
	data, err := os.ReadFile(filepath.Join(e.dir, "runs", q.Run, "trials", "000.queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"top":[{"doc_id":"doc://a/1","score":1,"grade":3},{"doc_id":"doc://b/2","score":0.5,"grade":-1},{"doc_id":"doc://a/3","score":0.3333333333333333,"grade":-1}]`) {
		t.Errorf("q1's recorded top does not grade the first match only:\n%s", data)
	}
	if q.FailureCount != 1 || q.Failures[0].QueryID != "q3" || q.Failures[0].BestRank != 0 || q.Failures[0].Expected[0].Pattern != "doc://a/.*" {
		t.Errorf("failures = %+v, want q3 with its pattern and no best rank", q.Failures)
	}
}

// TestCheckQualityAgainst runs the demo on two configs: the first (BM25
// only) is exported as a baseline file; the second (the default hybrid) is
// checked --against it with a relative gate, its Markdown summary compared
// with a golden file; then the BM25-only config again --against
// latest-on-branch (the hybrid run) fails the relative gate (exit 1).
// A relative gate without a reference and a broken baseline are input
// errors (exit 2).
func TestCheckQualityAgainst(t *testing.T) {
	e := newSweepEnv(t, "")
	bm25 := "backend:\n  engine:\n    fusion: {method: rrf, k: 60, weights: {bm25: 1.0, dense: 0.0}}\n"
	gates := "gates: [\"NDCG@10 >= ref - 0.01\", \"routing[direct] == 1.0\"]\n"
	e.write("tune.yaml", bm25)
	e.mustRun(0, "check-quality", "--branch", "main", "--export-baseline", "golden.baseline.json")
	base, err := runs.ReadBaseline(filepath.Join(e.dir, "golden.baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	if base.Trial != "as-is" || len(base.Queries) == 0 || base.Scorecard["NDCG@10"] == 0 {
		t.Fatalf("baseline = %+v", base)
	}

	e.write("tune.yaml", gates)
	_, stderr := e.mustRun(2, "check-quality")
	if !strings.Contains(stderr, `gate "NDCG@10 >= ref - 0.01" is relative to a reference: give one with --against`) {
		t.Errorf("a relative gate without --against: stderr\n%s", stderr)
	}
	stdout, _ := e.mustRun(0, "check-quality", "--branch", "feature", "--against", "golden.baseline.json", "--format", "md", "--failures", "1", "--by", "difficulty")
	got := regexp.MustCompile(`20\d{6}T\d{6}Z-[0-9a-f]{6}`).ReplaceAllString(stdout, "RUN")
	golden := filepath.Join("testdata", "checkquality", "against.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("--against summary differs from %s (rerun with -update to accept):\n%s", golden, got)
	}

	e.write("tune.yaml", bm25+gates)
	q, stderr := e.checkQuality(1, "--branch", "main", "--against", "latest-on-branch", "--base-branch", "feature")
	if q.GatesPass || q.Against == nil || !strings.Contains(stderr, "1 of 2 gates failed: NDCG@10 >= ref - 0.01 (ref 0.7238: >= 0.7138)") {
		t.Errorf("BM25 only against the hybrid: gates pass %v, stderr\n%s", q.GatesPass, stderr)
	}
	if q.Against.Metrics[0].Metric != "primary" || q.Against.Metrics[0].Paired.Delta >= 0 {
		t.Errorf("primary delta = %+v, want a loss", q.Against.Metrics[0])
	}

	e.write("broken.json", "{\n  \"fusiontune_baseline\": 1,\n  \"per_query\": [}\n")
	_, stderr = e.mustRun(2, "check-quality", "--against", "broken.json")
	if !strings.Contains(stderr, "broken.json: 3:") {
		t.Errorf("a broken baseline: stderr\n%s", stderr)
	}
}

// TestCheckQualitySegments evaluates only the demo's misspelled queries
// (--category), split by language, with a line per query (--verbose): the
// summary names the filter, counts only those queries, and every query
// has its line with the grades of its top 10; a filter no query passes
// and an unknown --by are input errors.
func TestCheckQualitySegments(t *testing.T) {
	e := newSweepEnv(t, "")
	q, stderr := e.checkQuality(0, "--category", "misspelled", "--lang", "en", "--by", "language", "--verbose")
	if q.Filter != "category=misspelled, language=en" || q.Queries != 16 {
		t.Errorf("filter %q over %d queries, want category=misspelled, language=en over 16", q.Filter, q.Queries)
	}
	if q.Segments == nil || len(q.Segments.Rows) != 1 || q.Segments.Rows[0].Segment != "en" || q.Segments.Rows[0].Queries != 16 ||
		q.Segments.Rows[0].Primary != runs.Round(q.Primary) {
		t.Errorf("segments = %+v, want one row en with the 16 queries and the primary %v", q.Segments, q.Primary)
	}
	if q.TopLabels == nil || q.TopLabels.Queries != 16 || q.Segments != nil && q.Segments.Rows[0].NoRelevant != q.TopLabels.NoRelevant {
		t.Errorf("top labels = %+v, segments %+v", q.TopLabels, q.Segments)
	}
	line := regexp.MustCompile(`(?m)^q\d+  ".*"  first relevant (\d+|-)  ([0-3-]( [0-3-]){9})$`)
	if n := len(line.FindAllString(stderr, -1)); n != 16 {
		t.Errorf("%d per-query lines, want 16; stderr:\n%s", n, stderr)
	}
	_, stderr = e.mustRun(2, "check-quality", "--category", "nosuch")
	if !strings.Contains(stderr, "--category/--lang: no query of the golden set has category=nosuch") {
		t.Errorf("an empty filter: stderr\n%s", stderr)
	}
	_, stderr = e.mustRun(2, "check-quality", "--by", "lang")
	if !strings.Contains(stderr, `--by: unknown segmentation "lang" (want language, category, difficulty or meta.KEY)`) {
		t.Errorf("an unknown --by: stderr\n%s", stderr)
	}
	stdout, _ := e.mustRun(0, "check-quality", "--lang", "en", "--failures", "0")
	if !strings.Contains(stdout, "only the queries with language=en: the scores are of this subset") {
		t.Errorf("the text summary does not name the filter:\n%s", stdout)
	}
}

// TestCheckQualityDatasets checks an English and a Spanish golden set in
// one command (--dataset-id all): a row per dataset, each equal to what
// --dataset-id ID alone reports, the gates applied per dataset (the
// Spanish set fails its recall gate: exit 1), and --against refused.
func TestCheckQualityDatasets(t *testing.T) {
	corpus := absPath(t, "../../experiments/demo/corpus.jsonl")
	e := newSweepEnv(t, "runs_dir: runs\ngates: [\"Recall@20 >= 0.5\"]\ndatasets:\n"+
		"  - {id: en, path: "+absPath(t, "testdata/checkquality/datasets/en.json")+", corpus: "+corpus+"}\n"+
		"  - {id: es, path: "+absPath(t, "testdata/checkquality/datasets/es.json")+", corpus: "+corpus+"}\n")
	stdout, stderr := e.mustRun(1, "check-quality", "--dataset-id", "all", "--format", "json")
	var all runs.DatasetsQuality
	if err := json.Unmarshal([]byte(stdout), &all); err != nil {
		t.Fatalf("stdout is not a datasets summary: %v\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr, "gates failed on 1 of 2 datasets: es") {
		t.Errorf("stderr does not name the failing dataset:\n%s", stderr)
	}
	if all.GatesPass || len(all.Datasets) != 2 {
		t.Fatalf("summary = %+v, want two rows and a failed gate", all)
	}
	for i, c := range []struct {
		id, lang string
		code     int
	}{{"en", "en", 0}, {"es", "es", 1}} {
		q, _ := e.checkQuality(c.code, "--dataset-id", c.id)
		want := runs.DatasetRow(c.id, c.lang, &q)
		got := all.Datasets[i]
		if got.Run == "" || got.Run == q.Run {
			t.Errorf("row %s: run %q, want its own run", c.id, got.Run)
		}
		var recorded runs.Quality
		data, err := os.ReadFile(filepath.Join(e.dir, "runs", got.Run, runs.QualityFile))
		if err != nil || json.Unmarshal(data, &recorded) != nil || runs.Round(recorded.Primary) != got.Primary {
			t.Errorf("row %s: the run's %s does not hold its primary %v (%v)", c.id, runs.QualityFile, got.Primary, err)
		}
		got.Run, want.Run = "", ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("row %s = %+v\n--dataset-id %s alone: %+v", c.id, got, c.id, want)
		}
	}
	text, _ := e.mustRun(1, "check-quality", "--dataset-id", "all")
	if !regexp.MustCompile(`(?m)^  es +es +5 +0\.\d{4} .* FAIL +\S+$`).MatchString(text) {
		t.Errorf("the text table has no failing es row:\n%s", text)
	}
	_, stderr = e.mustRun(2, "check-quality", "--dataset-id", "all", "--against", "latest")
	if !strings.Contains(stderr, "--dataset-id all: --against compares one dataset with its reference") {
		t.Errorf("--against with all: stderr\n%s", stderr)
	}
}
