package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/weaviate/weaviatetest"
	"github.com/fusiontune/fusiontune/internal/pgtest"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
)

// shadowJSON is the part of `tune shadow --format json` the tests read.
type shadowJSON struct {
	Control, Treatment string
	Metric             struct {
		Name      string
		N         int
		Control   float64
		Treatment float64
		SPRT      struct{ Decision string }
		McNemar   *struct {
			TreatmentWins int     `json:"treatment_wins"`
			ControlWins   int     `json:"control_wins"`
			PExact        float64 `json:"p_exact"`
		}
	}
	Queries []struct {
		ID         string
		Query      string
		ControlIDs []string `json:"control_ids"`
		TreatIDs   []string `json:"treatment_ids"`
	}
}

// writeTraffic writes, into e, a query log of searches of the demo golden
// set's queries (in its order, each once) and TREC qrels of their
// judgments under the harvested query ids (tune export, then each topic's
// id replaced by harvest.QueryID of its text). It returns the two paths
// the texts in log order and how many of them are judged.
func writeTraffic(t *testing.T, e *sweepEnv) (log, qrels string, texts []string, judged int) {
	t.Helper()
	e.write("golden.yaml", "dataset:\n  path: "+absPath(t, "../../experiments/demo/golden.json")+"\n  corpus: "+absPath(t, "../../experiments/demo/corpus.jsonl")+"\n")
	if _, stderr, code := e.run("export", "--config", "golden.yaml", "--out", "exported"); code != 0 {
		t.Fatalf("tune export: exit %d\n%s", code, stderr)
	}
	topics, err := os.ReadFile(filepath.Join(e.dir, "exported", "topics.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{} // golden id -> harvested id
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(string(topics)), "\n") {
		id, text, _ := strings.Cut(line, "\t")
		ids[id] = harvest.QueryID(harvest.Normalize(text))
		texts = append(texts, text)
		ev, _ := json.Marshal(map[string]any{"type": "search", "time": fmt.Sprintf("2026-01-02T10:%02d:%02dZ", i/60, i%60),
			"request_id": fmt.Sprintf("r%03d", i), "query": text, "k": 10})
		b.Write(append(ev, '\n'))
	}
	log = e.write("traffic.jsonl", b.String())
	raw, err := os.ReadFile(filepath.Join(e.dir, "exported", "qrels.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var q strings.Builder
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		fmt.Fprintf(&q, "%s 0 %s %s\n", ids[f[0]], f[2], f[3])
		if !seen[f[0]] {
			seen[f[0]] = true
			judged++
		}
	}
	return log, e.write("qrels.txt", q.String()), texts, judged
}

// servedSearch is a search line of the service's own query log.
type servedSearch struct {
	Query   string `json:"query"`
	K       int    `json:"k"`
	Config  string `json:"config"`
	Results []struct {
		ID string `json:"id"`
	} `json:"results"`
}

// servedAfter returns the searches the service logged in path after its
// first skip lines.
func servedAfter(t *testing.T, path string, skip int) []servedSearch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []servedSearch
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for n := 0; sc.Scan(); n++ {
		var s struct {
			Type string `json:"type"`
			servedSearch
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if n >= skip && s.Type == "search" {
			out = append(out, s.servedSearch)
		}
	}
	return out
}

func lineCount(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

// TestShadowHTTPBackend shadows a service the tuner does not own (tune
// serve, restarted only by its restart script, the http kind): the control
// is the service as it runs, the treatment a recorded trial's parameters
// (the hashing embedder's dense retrieval alone, one candidate deep) applied
// through the kind's own path (its config rewritten, the service
// restarted, restored afterwards). The service's own query log shows both
// sides answered exactly the logged requests, in log order, with the
// lists the report compares; the sequential test and McNemar's test find
// the treatment worse on Success@3.
func TestShadowHTTPBackend(t *testing.T) {
	e := newSweepEnv(t, "")
	e.env = append(e.env, "SEARCH_AUTH=Bearer secret-value-123")
	svc := startForeignService(t, e)
	served := filepath.Join(e.dir, "served.jsonl")
	tmpl, err := os.ReadFile(filepath.Join(e.dir, "search.yaml.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("search.yaml.tmpl", string(tmpl)+"{{- if has \"depth\" }}\ndepth: {{ .depth }}\n{{- end }}\nlog: {path: "+served+"}\n")
	svc.original = append(svc.original, []byte("log: {path: "+served+"}\n")...)
	e.write("search.yaml", string(svc.original))
	restart := exec.Command(svc.restart[0], svc.restart[1:]...)
	restart.Dir = e.dir
	if out, err := restart.CombinedOutput(); err != nil {
		t.Fatalf("restart the service: %v\n%s", err, out)
	}
	waitHealthy(t, "http://"+svc.addr+"/healthz")

	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "weak", "params": {"retrievers": ["dense"], "depth": 1}}]}`)
	if stdout, stderr, code := e.run("--experiments", exp); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := filepath.Base(e.runDirs()[0])
	log, qrels, texts, judged := writeTraffic(t, e)
	before, starts := lineCount(t, served), svc.starts()
	stdout, stderr, code := e.run("shadow", "--log", log, "--control", "production", "--treatment", "run:"+run+":weak",
		"--qrels", qrels, "--metric", "Success@3", "--k", "3", "--effect", "0.1", "--format", "json")
	if code != 0 {
		t.Fatalf("tune shadow: exit %d\n%s\n%s", code, stdout, stderr)
	}
	svc.checkAsFound(t)
	// The control searched the service as it ran; the treatment's config
	// started it once, and the restored config once more.
	if n := svc.starts() - starts; n != 2 {
		t.Errorf("the service started %d times during the shadow test, want 2 (the trial's config, then the restored one)", n)
	}
	var r shadowJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if r.Control != "production (http)" || r.Treatment != run+":weak (http)" {
		t.Errorf("sides %q, %q", r.Control, r.Treatment)
	}
	if len(r.Queries) != len(texts) {
		t.Fatalf("%d queries compared, want the %d logged", len(r.Queries), len(texts))
	}

	// The service logged each side's warm-up, then its answers to every
	// logged request in log order: the control's under the production
	// config, the treatment's under the trial's.
	byConfig := map[string][]servedSearch{}
	var order []string
	for _, s := range servedAfter(t, served, before) {
		if _, ok := byConfig[s.Config]; !ok {
			order = append(order, s.Config)
		}
		byConfig[s.Config] = append(byConfig[s.Config], s)
	}
	if len(order) != 2 {
		t.Fatalf("the service answered under %d configs during the shadow test, want 2 (production, then the trial's)", len(order))
	}
	for side, cfg := range order {
		got := byConfig[cfg]
		if len(got) < len(texts) {
			t.Fatalf("side %d: the service answered %d searches, want at least the %d logged", side, len(got), len(texts))
		}
		got = got[len(got)-len(texts):]
		for i, s := range got {
			q := r.Queries[i]
			want := q.ControlIDs
			if side == 1 {
				want = q.TreatIDs
			}
			var ids []string
			for _, res := range s.Results {
				ids = append(ids, res.ID)
			}
			if s.Query != texts[i] || q.Query != texts[i] || s.K != 3 || strings.Join(ids, " ") != strings.Join(want, " ") {
				t.Errorf("side %d, request %d: the service answered %q (k %d) with %v; the report compares %q with %v; logged %q",
					side, i, s.Query, s.K, ids, q.Query, want, texts[i])
			}
		}
	}

	// A settings file (here the same one) answers as production does.
	stdout, stderr, code = e.run("shadow", "--log", log, "--control", "production", "--treatment", "settings:tune.yaml", "--k", "3", "--format", "json")
	var same struct{ Counts map[string]int }
	if err := json.Unmarshal([]byte(stdout), &same); code != 0 || err != nil || same.Counts["identical"] != len(texts) {
		t.Errorf("production against settings:tune.yaml: exit %d, %v, counts %v, want all %d identical\n%s", code, err, same.Counts, len(texts), stderr)
	}
	m := r.Metric
	if m.Name != "Success@3" || m.N != judged || m.SPRT.Decision != "worse" || m.Treatment >= m.Control {
		t.Errorf("metric %+v: want the weak treatment found worse on all %d judged queries", m, judged)
	}
	if b := m.McNemar; b == nil || b.ControlWins <= b.TreatmentWins || b.PExact >= 0.05 {
		t.Errorf("McNemar %+v: want the control winning significantly more discordant queries", b)
	}
}

// TestShadowPostgresBackend shadows the postgres kind (a throwaway
// cluster with pgvector; under CI=true it runs, never skips) as
// shadowAgainstSweep describes.
func TestShadowPostgresBackend(t *testing.T) {
	url := pgtest.VectorDatabase(t)
	corpus := absPath(t, "../../experiments/demo/corpus.jsonl")
	e := newSweepEnv(t, "runs_dir: runs\neval:\n  concurrency: 4\ndataset:\n  path: "+absPath(t, "../../experiments/demo/golden.json")+"\n  corpus: "+corpus+
		"\nbackend:\n  kind: postgres\n  postgres:\n    url: "+url+"\n    corpus: "+corpus+"\n    model: lsa-32\n")
	shadowAgainstSweep(t, e, "postgres", `{"fusion.weights.bm25": 0, "depth": 1}`)
}

// TestShadowWeaviateBackend shadows the weaviate kind (a weaviate-server
// the kind starts; under CI=true it runs, never skips) as
// shadowAgainstSweep describes. The index is flat (exact search): an HNSW
// graph is rebuilt at each bring-up and may answer a near tie otherwise.
func TestShadowWeaviateBackend(t *testing.T) {
	bin, err := weaviatetest.Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true", err)
		}
		t.Skip(err)
	}
	e := newSweepEnv(t, "runs_dir: runs\ndataset:\n  path: "+absPath(t, "../../experiments/demo/golden.json")+"\n  corpus: "+absPath(t, "../../experiments/demo/corpus.jsonl")+
		"\nbackend:\n  kind: weaviate\n  weaviate:\n    bin: "+bin+"\n    model: hash-64\n    index_type: flat\n")
	shadowAgainstSweep(t, e, "weaviate", `{"retrievers": ["dense"], "depth": 1}`)
}

// shadowAgainstSweep sweeps the settings of e (a backend of kind) over
// the baseline (no parameter) and a weak trial (params), live (the
// lists it records are the backend's own answers), then shadows
// the backend as its settings configure it (the control) against the
// weak trial's parameters (the treatment), each searched through the
// kind's own search, on the demo golden set's queries as logged traffic.
// Every logged request's two lists are the ones the sweep recorded for
// the same query text under the baseline and under the trial, and the
// sequential and McNemar tests find the treatment worse.
func shadowAgainstSweep(t *testing.T, e *sweepEnv, kind, params string) {
	t.Helper()
	exp := e.write("exp.json", `{"baseline": {"params": {}}, "experiments": [{"name": "weak", "params": `+params+`}]}`)
	if stdout, stderr, code := e.run("--experiments", exp, "--mode", "live"); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	log, qrels, texts, judged := writeTraffic(t, e)
	runDir := e.runDirs()[0]
	stdout, stderr, code := e.run("shadow", "--log", log, "--control", "production", "--treatment", "run:"+filepath.Base(runDir)+":weak",
		"--qrels", qrels, "--metric", "Success@3", "--k", "3", "--effect", "0.1", "--format", "json")
	if code != 0 {
		t.Fatalf("tune shadow: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var r shadowJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if want := "production (" + kind + ")"; r.Control != want || len(r.Queries) != len(texts) {
		t.Fatalf("control %q on %d queries, want %s on the %d logged", r.Control, len(r.Queries), want, len(texts))
	}

	run, err := (&runs.Store{Dir: filepath.Join(e.dir, "runs")}).Resolve(filepath.Base(runDir))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	topics, err := os.ReadFile(filepath.Join(e.dir, "exported", "topics.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	golden := map[string]string{} // text -> golden id
	for _, line := range strings.Split(strings.TrimSpace(string(topics)), "\n") {
		id, text, _ := strings.Cut(line, "\t")
		golden[text] = id
	}
	recorded := func(trial string) map[string]string { // golden id -> its top 3
		t.Helper()
		entry, err := lb.Pick(trial)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := run.QueryResults(entry.Index)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, q := range qs {
			var ids []string
			for _, d := range q.Top[:min(3, len(q.Top))] {
				ids = append(ids, d.DocID)
			}
			out[q.QueryID] = strings.Join(ids, " ")
		}
		return out
	}
	control, treatment := recorded("baseline"), recorded("weak")
	for i, q := range r.Queries {
		id := golden[q.Query]
		if q.Query != texts[i] || strings.Join(q.ControlIDs, " ") != control[id] || strings.Join(q.TreatIDs, " ") != treatment[id] {
			t.Errorf("request %d %q: compared %v with %v; the sweep recorded %s (baseline) and %s (weak) for %s",
				i, q.Query, q.ControlIDs, q.TreatIDs, control[id], treatment[id], id)
		}
	}
	m := r.Metric
	if m.N != judged || m.SPRT.Decision != "worse" || m.McNemar == nil || m.McNemar.ControlWins <= m.McNemar.TreatmentWins || m.McNemar.PExact >= 0.05 {
		t.Errorf("metric %+v (McNemar %+v): want the weak treatment found worse on all %d judged queries", m, m.McNemar, judged)
	}
}
