package main_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
)

// judgeKey is the API key the tests' judge server requires; it must never
// be written anywhere.
const judgeKey = "sk-judge-test-0123456789"

// newJudgeEnv is a directory with tune.yaml pointing the llm judge at a
// rule-answering server on 127.0.0.1 (the shipped demo as the dataset,
// labels.db as the store) and a copy of testdata/judge/pool.jsonl.
func newJudgeEnv(t *testing.T, extra string) (*sweepEnv, *llmtest.Server) {
	t.Helper()
	srv := llmtest.Start(t)
	srv.Key = judgeKey
	e := newSweepEnv(t, fmt.Sprintf("runs_dir: runs\nlabels: labels.db\njudge:\n  url: %s\n  model: rule-1\n  api_key_env: FT_TEST_JUDGE_KEY\n  retries: 1\n  timeout: 5s\n%s", srv.URL, extra))
	e.env = append(e.env, "FT_TEST_JUDGE_KEY="+judgeKey)
	pool, err := os.ReadFile(filepath.Join("testdata", "judge", "pool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("pool.jsonl", string(pool))
	return e, srv
}

// mustRun runs tune and fails t unless it exits with code.
func (e *sweepEnv) mustRun(code int, args ...string) (string, string) {
	e.t.Helper()
	stdout, stderr, got := e.run(args...)
	if got != code {
		e.t.Fatalf("tune %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, stdout, stderr)
	}
	return stdout, stderr
}

// labelCount is the number of labels ever appended to the store.
func (e *sweepEnv) labelCount() int {
	e.t.Helper()
	stdout, _ := e.mustRun(0, "judge", "labels", "--all")
	return strings.Count(stdout, "\n")
}

// TestJudgeLLM: a dry run calls nothing and writes nothing; a budget of one
// call judges one query's documents and stops; the next run judges the
// rest; a re-run judges nothing; the key is written nowhere.
func TestJudgeLLM(t *testing.T) {
	e, srv := newJudgeEnv(t, "")
	stdout, _ := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--dry-run", "--budget-calls", "2")
	for _, want := range []string{"dry run: llm:rule-1@", "9 pairs, 0 answered by the cache; 3 calls of up to 5 documents; tokens at most",
		"budget: calls 2, tokens unbounded: judging stops when it is spent"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run stdout lacks %q:\n%s", want, stdout)
		}
	}
	if srv.Requests() != 0 {
		t.Fatalf("the dry run made %d requests", srv.Requests())
	}
	if _, err := os.Stat(filepath.Join(e.dir, "labels.db")); !os.IsNotExist(err) {
		t.Fatalf("the dry run created the store: %v", err)
	}

	stdout, stderr := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--budget-calls", "1")
	if !strings.Contains(stdout, "appended 3 labels of dataset \"demo\" by llm:rule-1@") || !strings.Contains(stdout, "(1 calls,") ||
		!strings.Contains(stderr, "judging budget spent: 1 of 1 calls made") || !strings.Contains(stderr, "the 6 pairs left stay for another run") {
		t.Fatalf("budget run:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	stdout, stderr = e.mustRun(0, "judge", "run", "--pool", "pool.jsonl")
	if !strings.Contains(stderr, "9 pairs, 3 already labelled") || !strings.Contains(stdout, "appended 6 labels") || srv.Requests() != 3 {
		t.Fatalf("second run (%d requests):\nstdout:\n%s\nstderr:\n%s", srv.Requests(), stdout, stderr)
	}
	stdout, stderr = e.mustRun(0, "judge", "run", "--pool", "pool.jsonl")
	if !strings.Contains(stderr, "9 already labelled") || !strings.Contains(stdout, "appended 0 labels") || srv.Requests() != 3 {
		t.Fatalf("third run (%d requests):\nstdout:\n%s\nstderr:\n%s", srv.Requests(), stdout, stderr)
	}
	if n := e.labelCount(); n != 9 {
		t.Fatalf("%d labels in the store, want 9", n)
	}
	// The key is in no file and no output.
	filepath.Walk(e.dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(judgeKey)) {
				t.Errorf("%s holds the API key", path)
			}
		}
		return nil
	})
}

// TestJudgeLLMFailures: malformed model answers to every call and a 5xx
// storm fail the run (exit 1) with a clear error, and nothing is appended.
func TestJudgeLLMFailures(t *testing.T) {
	cases := []struct {
		name  string
		fault func(int64, http.ResponseWriter, *http.Request) bool
		want  string
	}{
		{"junk answer", func(_ int64, w http.ResponseWriter, _ *http.Request) bool {
			llmtest.WriteCompletion(w, "Sure! D1 looks relevant.", 5, 5)
			return true
		}, "malformed model answer: no JSON in the answer"},
		{"503 storm", func(_ int64, w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return true
		}, "HTTP 503"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, srv := newJudgeEnv(t, "  answer_retries: 0\n")
			srv.Fault = c.fault
			_, stderr := e.mustRun(1, "judge", "run", "--pool", "pool.jsonl")
			if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "nothing appended to labels.db") {
				t.Fatalf("stderr:\n%s\nwant %q and nothing appended", stderr, c.want)
			}
			if n := e.labelCount(); n != 0 {
				t.Fatalf("%d labels appended by a failed run", n)
			}
		})
	}
}

// TestJudgeLLMMalformedSkipped: a query whose answers stay malformed
// after judge.answer_retries more asks is skipped with a warning naming it
// and its documents, counted in the summary; the other queries' labels
// are appended (exit 0), and a re-run asks about the skipped pairs again.
func TestJudgeLLMMalformedSkipped(t *testing.T) {
	e, srv := newJudgeEnv(t, "  answer_retries: 1\n")
	srv.SetMalformed(func(q string, attempt int) bool {
		return q == "how to top up boiler pressure with the filling loop" || attempt == 0 // q001 stays malformed
	})
	stdout, stderr := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl")
	if !strings.Contains(stdout, "appended 6 labels") || !strings.Contains(stdout, "; 3 pairs skipped: malformed answers)") ||
		!strings.Contains(stderr, "warning: query \"q001\": documents kb-0001, kb-0028, kb-0172 skipped, the answer still malformed after 2 attempts: ") || srv.Requests() != 6 {
		t.Fatalf("%d requests\nstdout:\n%s\nstderr:\n%s", srv.Requests(), stdout, stderr)
	}
	srv.SetMalformed(nil)
	stdout, _ = e.mustRun(0, "judge", "run", "--pool", "pool.jsonl")
	if !strings.Contains(stdout, "appended 3 labels") || strings.Contains(stdout, "skipped") {
		t.Fatalf("re-run:\n%s", stdout)
	}
}

// TestJudgeSettingsChecked: judge.* numbers out of range are input errors
// (exit 2) naming the file, line and column, before any work.
func TestJudgeSettingsChecked(t *testing.T) {
	e, srv := newJudgeEnv(t, "  concurrency: 0\n  batch: 51\n  budget:\n    tokens: -5\n")
	settings, _ := os.ReadFile(filepath.Join(e.dir, "tune.yaml"))
	settings = []byte(strings.Replace(string(settings), "url: http://", "url: ftp://", 1))
	e.write("tune.yaml", strings.Replace(string(settings), "labels: labels.db", "labels: mysql://u@h/db", 1))
	_, stderr := e.mustRun(2, "judge", "run", "--pool", "pool.jsonl")
	_, checked := e.mustRun(2, "check", "tune.yaml")
	stderr += checked
	for _, want := range []string{`tune.yaml:2:9: labels: bad label store URL "mysql://u@h/db": unsupported scheme "mysql"`, "tune.yaml:4:8: judge.url: want an http(s) base URL", "\ntune.yaml:9:16: judge.concurrency: must be in [1, 64] (got 0)\ntune.yaml:10:10: judge.batch: must be in [1, 50] (got 51)\n" +
		"tune.yaml:12:13: judge.budget.tokens: must be in [0, 1000000000000], 0 for no bound (got -5)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if srv.Requests() != 0 {
		t.Fatal("requests made despite bad settings")
	}
}

// TestJudgeHumanAndAgree: export the pool for a person, import the filled
// file, judge with the llm, import labels from a qrels file with unknown
// queries (refused, nothing appended), then tune judge agree per category
// against the golden file.
func TestJudgeHumanAndAgree(t *testing.T) {
	e, _ := newJudgeEnv(t, "")
	stdout, _ := e.mustRun(0, "judge", "export", "--pool", "pool.jsonl", "--format", "tsv", "--out", "pairs.tsv")
	if !strings.Contains(stdout, "pairs.tsv: 9 pairs of dataset \"demo\" to label") {
		t.Fatalf("export: %s", stdout)
	}
	data, _ := os.ReadFile(filepath.Join(e.dir, "pairs.tsv"))
	lines := strings.Split(string(data), "\n")
	if lines[0] != "dataset\tquery\tdoc\tgrade\trationale\tquery_text\tdoc_title\tdoc_text" || !strings.HasPrefix(lines[1], "demo\tq001\tkb-0028\t\t\thow to top up boiler pressure") {
		t.Fatalf("export:\n%s\n%s", lines[0], lines[1][:80])
	}
	// Alice grades the q001 rows that gold does not judge (kb-0001) and
	// the q002 distractor; the rest stays empty.
	lines[3] = strings.Replace(lines[3], "demo\tq001\tkb-0001\t\t", "demo\tq001\tkb-0001\t0\tunrelated", 1)
	lines[5] = strings.Replace(lines[5], "demo\tq002\tkb-0031\t\t", "demo\tq002\tkb-0031\t1\tother model", 1)
	e.write("filled.tsv", strings.Join(lines, "\n"))
	stdout, _ = e.mustRun(0, "judge", "import", "filled.tsv", "--judge", "alice")
	if !strings.Contains(stdout, "appended 2 labels of dataset \"demo\" from filled.tsv") || !strings.Contains(stdout, "(7 rows without a grade skipped)") {
		t.Fatalf("import: %s", stdout)
	}
	e.mustRun(0, "judge", "run", "--pool", "pool.jsonl")

	// A qrels file for another golden set: refused, every unknown query
	// named, nothing appended.
	e.write("other.qrels", "q001 0 kb-0001 1\nq999 0 kb-0002 1\nq998 0 kb-0002 1\n")
	_, stderr := e.mustRun(2, "judge", "import", "other.qrels", "--judge", "bob")
	if !strings.Contains(stderr, `2 labels cannot be stored for dataset "demo" (nothing appended)`) || !strings.Contains(stderr, `query "q999" is not in the golden set`) {
		t.Fatalf("import of unknown queries:\n%s", stderr)
	}
	e.write("high.qrels", "q001 0 kb-0001 7\n")
	if _, stderr := e.mustRun(2, "judge", "import", "high.qrels", "--judge", "bob"); !strings.Contains(stderr, "grade 7 is off the golden set's scale 0..3") {
		t.Fatalf("import of a grade off the scale:\n%s", stderr)
	}
	// A document the corpus lacks, the same pair twice: refused likewise.
	e.write("unknown-doc.qrels", "q001 0 kb-9999 1\n")
	if _, stderr := e.mustRun(2, "judge", "import", "unknown-doc.qrels", "--judge", "bob"); !strings.Contains(stderr, `document "kb-9999" is not in the corpus`) {
		t.Fatalf("import of a document not in the corpus:\n%s", stderr)
	}
	e.write("twice.jsonl", `{"dataset":"demo","query":"q001","doc":"kb-0001","grade":1,"judge":"m","source":"llm","time":"2026-11-24T00:00:00Z"}`+"\n"+
		`{"dataset":"demo","query":"q001","doc":"kb-0001","grade":2,"judge":"m","source":"llm","time":"2026-11-24T00:00:00Z"}`+"\n")
	if _, stderr := e.mustRun(2, "judge", "import", "twice.jsonl"); !strings.Contains(stderr, `graded twice by "m": one grade per pair`) {
		t.Fatalf("import of a grade off the scale:\n%s", stderr)
	}
	if n := e.labelCount(); n != 11 {
		t.Fatalf("%d labels, want 11 (2 human, 9 llm)", n)
	}
	qrels, _ := e.mustRun(0, "judge", "labels", "--format", "qrels")
	// Alice's labels win over the llm's on her pairs.
	if !strings.Contains(qrels, "q001 0 kb-0001 0\n") || !strings.Contains(qrels, "q002 0 kb-0031 1\n") || strings.Count(qrels, "\n") != 9 {
		t.Fatalf("labels --format qrels:\n%s", qrels)
	}
	agree, _ := e.mustRun(0, "judge", "agree", "--by", "category")
	checkJudgeGolden(t, "agree.golden", agree)
	js, _ := e.mustRun(0, "judge", "agree", "--format", "json")
	if !strings.Contains(js, `"headline": "kappa_quadratic"`) || !strings.Contains(js, `"reference": "gold/human"`) {
		t.Fatalf("agree --format json:\n%s", js)
	}
}

// checkJudgeGolden compares got with testdata/judge/NAME (rewritten with
// -update). The judge's name carries the prompt hash; it is the same for
// the same shipped prompt.
func checkJudgeGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "judge", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("output differs from %s:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestJudgeConcurrentImports: two tune processes appending to one store at
// once lose nothing.
func TestJudgeConcurrentImports(t *testing.T) {
	e, _ := newJudgeEnv(t, "")
	var a, b strings.Builder
	for i := range 240 { // the demo corpus's documents kb-0001..kb-0240
		fmt.Fprintf(&a, "q%03d 0 kb-%04d 1\n", i%40+1, i+1)
		fmt.Fprintf(&b, "q%03d 0 kb-%04d 2\n", i%40+1, i+1)
	}
	e.write("a.qrels", a.String())
	e.write("b.qrels", b.String())
	ca, outA, errA := e.command("judge", "import", "a.qrels", "--judge", "alice")
	cb, outB, errB := e.command("judge", "import", "b.qrels", "--judge", "bob")
	if err := ca.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cb.Start(); err != nil {
		t.Fatal(err)
	}
	errs := []error{ca.Wait(), cb.Wait()}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("import %d: %v\n%s%s%s%s", i, err, outA, errA, outB, errB)
		}
	}
	if n := e.labelCount(); n != 480 {
		t.Fatalf("%d labels in the store, want 480", n)
	}
}

// TestJudgeFile: --judge file:PATH labels the pool's pairs the qrels file
// judges; a file for another golden set is refused with nothing appended.
func TestJudgeFile(t *testing.T) {
	e, srv := newJudgeEnv(t, "")
	e.write("hidden.qrels", "q001 0 kb-0001 2\nq023 0 kb-0043 2\nq023 0 kb-0099 1\n")
	stdout, _ := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:hidden.qrels", "--dry-run")
	if !strings.Contains(stdout, "dry run: file:hidden.qrels would label 2 of the 9 pairs; nothing written") {
		t.Fatalf("dry run: %s", stdout)
	}
	stdout, _ = e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:hidden.qrels")
	if !strings.Contains(stdout, "appended 2 labels of dataset \"demo\" by file:hidden.qrels") || srv.Requests() != 0 {
		t.Fatalf("file judge: %s", stdout)
	}
	agree, _ := e.mustRun(0, "judge", "agree", "--judge", "file:hidden.qrels")
	if !strings.HasPrefix(agree, "file:hidden.qrels vs gold: 1 pairs") {
		t.Fatalf("agree: %s", agree)
	}
	e.write("other.qrels", "q001 0 kb-0001 2\nq777 0 kb-0001 1\n")
	_, stderr := e.mustRun(2, "judge", "run", "--pool", "pool.jsonl", "--judge", "file:other.qrels")
	if !strings.Contains(stderr, `1 query ids are not in the golden set of dataset "demo": "q777"`) {
		t.Fatalf("other golden set: %s", stderr)
	}
	if n := e.labelCount(); n != 2 {
		t.Fatalf("%d labels, want 2", n)
	}
}

// TestJudgeEnsemble: --judge ensemble asks two stand-in LLM servers (each
// with its own model name) and a qrels file, writes the vote under the
// ensemble's name with the agreement share as confidence, and prints each
// member's agreement with the ensemble; a second run judges nothing.
func TestJudgeEnsemble(t *testing.T) {
	other := llmtest.Start(t)
	other.Key = judgeKey
	other.Noise, other.NoiseSeed = 0.5, 3
	e, srv := newJudgeEnv(t, fmt.Sprintf("  ensemble:\n    members:\n      - {}\n      - {url: %s, model: rule-2}\n      - {file: hidden.qrels}\n", other.URL))
	e.write("hidden.qrels", "q001 0 kb-0001 2\nq023 0 kb-0043 2\nq023 0 kb-0099 1\n")
	name := "ensemble(llm:rule-1@91d71201,llm:rule-2@91d71201,file:hidden.qrels)"
	stdout, _ := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "ensemble", "--dry-run")
	if !strings.Contains(stdout, "dry run: "+name+": 18 pairs, 0 answered by the cache; 6 calls of up to 5 documents") || srv.Requests()+other.Requests() != 0 {
		t.Fatalf("dry run:\n%s", stdout)
	}
	stdout, stderr := e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "ensemble")
	for _, want := range []string{"appended 9 labels of dataset \"demo\" by " + name + " to labels.db (6 calls,",
		"each member against the ensemble (majority vote):\n  llm:rule-1@91d71201: 9 pairs, exact agreement ",
		"\n  llm:rule-2@91d71201: 9 pairs, exact agreement ", "\n  file:hidden.qrels: 2 pairs, exact agreement "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	if srv.Requests() != 3 || other.Requests() != 3 {
		t.Fatalf("%d and %d requests, want 3 each", srv.Requests(), other.Requests())
	}
	labels, _ := e.mustRun(0, "judge", "labels", "--format", "jsonl")
	if n := strings.Count(labels, `"judge":"`+name+`"`); n != 9 || !strings.Contains(labels, `"confidence":0.6666666666666666`) && !strings.Contains(labels, `"confidence":0.3333333333333333`) {
		t.Fatalf("%d labels by the ensemble:\n%s", n, labels)
	}
	stdout, _ = e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "ensemble")
	if !strings.Contains(stdout, "appended 0 labels") || srv.Requests() != 3 {
		t.Fatalf("re-run:\n%s", stdout)
	}
	settings, err := os.ReadFile(filepath.Join(e.dir, "tune.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("tune.yaml", strings.Replace(string(settings), "model: rule-2", "model: rule-1", 1))
	_, stderr = e.mustRun(2, "judge", "run", "--pool", "pool.jsonl", "--judge", "ensemble")
	if !strings.Contains(stderr, "judge.ensemble: ensemble members 1 and 2 are the same judge llm:rule-1@91d71201") {
		t.Fatalf("same judge twice: %s", stderr)
	}
	e.write("tune.yaml", strings.Replace(string(settings), "  ensemble:\n", "  ensemble:\n    vote: median\n", 1)+"      - {file: x.qrels, model: m}\n")
	_, stderr = e.mustRun(2, "judge", "run", "--pool", "pool.jsonl", "--judge", "ensemble")
	for _, want := range []string{"tune.yaml:10:11: judge.ensemble.vote: want majority or mean (got \"median\")",
		"tune.yaml:15:9: judge.ensemble.members[3]: a file member takes no url, model, api_key_env or prompt"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bad ensemble settings: stderr lacks %q:\n%s", want, stderr)
		}
	}
}
