package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

var (
	vecServiceOnce sync.Once
	vecServiceBin  string
	vecServiceErr  error
)

// vecService builds testdata/vecservice, a search service without a
// vectorizer (it ranks by the cosine of the query vector it is sent).
func vecService(t *testing.T) string {
	t.Helper()
	vecServiceOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vecservice")
		if err != nil {
			vecServiceErr = err
			return
		}
		vecServiceBin = filepath.Join(dir, "vecservice")
		if out, err := exec.Command("go", "build", "-o", vecServiceBin, "./testdata/vecservice").CombinedOutput(); err != nil {
			vecServiceErr = err
			vecServiceBin = string(out)
		}
	})
	if vecServiceErr != nil {
		t.Fatalf("go build ./testdata/vecservice: %v\n%s", vecServiceErr, vecServiceBin)
	}
	return vecServiceBin
}

// vecSettings are the backend settings of the query-vector tests:
// backend.vectors lsa-32 fitted on the demo corpus, and a request body
// that sends .vector.
const vecSettings = `runs_dir: runs
dataset: {path: DEMO/golden.json, corpus: DEMO/corpus.jsonl, split: all}
backend:
  kind: KIND
  health_url: http://ADDR/healthz
  template: service.json.tmpl
  vectors: {model: lsa-32}
  search:
    url: http://ADDR/search
    body: '{"query": {{ .query }}, "vector": {{ .vector }}, "k": {{ .k }}}'
    hits: hits
    id: doc_id
    score: score
`

// TestQueryVectorsEndToEnd sweeps a real search service that has no
// vectorizer (testdata/vecservice: it ranks its documents by the cosine of
// the vector in the request) through the process kind (the tuner starts
// it per trial) and the http kind (a service the test starts, restarted by
// scripts/restart-service.sh), with backend.vectors serving .vector: every
// request the service logs carries exactly the vector that the same
// embedder, fitted in this process on the same corpus, gives its query,
// and every trial's recorded hits and scores (sent as numeric strings) are
// the cosine ranking computed here, floor included.
func TestQueryVectorsEndToEnd(t *testing.T) {
	bin := vecService(t)
	demo := absPath(t, "../../experiments/demo")
	ctx := context.Background()
	loaded, err := corpus.Load(corpus.Config{Path: filepath.Join(demo, "corpus.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	chunks, texts, err := corpus.IndexTexts(loaded.Docs, corpus.ChunkConfig{})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.ForQueries(ctx, "lsa-32", embed.Options{}, texts)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.DocID
	}
	vecs, err := emb.EmbedDocuments(ctx, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	var docs bytes.Buffer
	for i := range ids {
		line, _ := json.Marshal(map[string]any{"id": ids[i], "vector": vecs[i]})
		docs.Write(append(line, '\n'))
	}
	gs, err := experiments.LoadGoldenSet(filepath.Join(demo, "golden.json"), experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, q := range gs.Queries {
		text[q.ID] = q.Text
	}
	// want ranks the documents as the service must for a query and floor.
	want := func(q string, floor float64, k int) []runs.RankedDoc {
		v, err := emb.EmbedQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []runs.RankedDoc
		for i := range ids {
			if s := cosine(v, vecs[i]); s >= floor {
				out = append(out, runs.RankedDoc{DocID: ids[i], Score: s})
			}
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Score != out[j].Score {
				return out[i].Score > out[j].Score
			}
			return out[i].DocID < out[j].DocID
		})
		return out[:min(k, len(out))]
	}

	for _, kind := range []string{"process", "http"} {
		t.Run(kind, func(t *testing.T) {
			e := newSweepEnv(t, "")
			addr := freeAddr(t)
			e.write("docs.jsonl", docs.String())
			e.write("service.json.tmpl", `{"vectors": {{ abs "docs.jsonl" }}, "log": {{ abs "requests.jsonl" }}, "floor": {{ param "custom.floor" -1 }}}`+"\n")
			settings := strings.NewReplacer("DEMO", demo, "KIND", kind, "ADDR", addr).Replace(vecSettings)
			if kind == "process" {
				settings += "  command: [" + bin + ", --listen, " + addr + ", --config, \"{config}\"]\n"
			} else {
				original := `{"vectors": "` + filepath.Join(e.dir, "docs.jsonl") + `", "log": "` + filepath.Join(e.dir, "requests.jsonl") + `", "floor": -1}` + "\n"
				e.write("service.json", original)
				restart := []string{absPath(t, "../../scripts/restart-service.sh"), "vec.pid", "vec.log", bin, "--listen", addr, "--config", "service.json"}
				settings += "  config: service.json\n  restart: [" + strings.Join(restart, ", ") + "]\n"
				cmd := exec.Command(restart[0], restart[1:]...)
				cmd.Dir = e.dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("start the service: %v\n%s", err, out)
				}
				t.Cleanup(func() {
					data, _ := os.ReadFile(filepath.Join(e.dir, "vec.pid"))
					if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				waitHealthy(t, "http://"+addr+"/healthz")
			}
			e.write("tune.yaml", settings)
			exp := e.write("exp.json", `{"baseline": {"params": {"custom.floor": -1}}, "experiments": [{"name": "floor", "params": {"custom.floor": 0.3}}]}`)
			args := []string{"--experiments", exp, "--mode", "live"}
			if kind == "http" {
				args = args[:2] // auto: live, and it says so
			}
			run, stdout, stderr := e.newRun(t, args...)
			if want := "note: --mode auto: backend.kind http does not replay: every trial runs live"; kind == "http" && !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}

			// The vectors arrive: each request as the service received it.
			f, err := os.Open(filepath.Join(e.dir, "requests.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			seen := map[string]bool{}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			n := 0
			for sc.Scan() {
				var r struct {
					Query  string    `json:"query"`
					Vector []float32 `json:"vector"`
				}
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				v, err := emb.EmbedQuery(ctx, r.Query)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Vector) != 32 || !equal32(r.Vector, v) {
					if n++; n <= 3 {
						t.Errorf("query %q: the service received %v, want %v", r.Query, r.Vector, v)
					}
				}
				seen[r.Query] = true
			}
			if len(seen) != len(gs.Queries) {
				t.Errorf("the service received %d distinct queries, want the golden set's %d", len(seen), len(gs.Queries))
			}

			// The scores: each trial's recorded hits are the cosine ranking.
			for i, floor := range []float64{-1, 0.3} {
				rs := readQueryResults(t, filepath.Join(run, "trials", "00"+strconv.Itoa(i)+".queries.jsonl"))
				if len(rs) != len(gs.Queries) {
					t.Fatalf("trial %d: %d query results, want %d", i, len(rs), len(gs.Queries))
				}
				bad := 0
				for _, r := range rs {
					w := want(text[r.QueryID], floor, scoring.TopRecorded)
					if !sameHits(r.Top, w) {
						if bad++; bad <= 3 {
							t.Errorf("trial %d query %s: recorded %v, want %v", i, r.QueryID, r.Top, w)
						}
					}
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			if kind == "http" {
				promotionContract(t, e, "service.json", "floor", `"floor": 0.3`)
			}
		})
	}
}

// promotionContract promotes trial of the latest run into production
// (holding want once promoted) and rolls it back, twice: each apply and
// each rollback succeeds, the rollback restores the production config's
// bytes, and the settings the sweep defaulted (such as the corpus
// backend.vectors is fitted on) serve the promotion as they served the
// sweep.
func promotionContract(t *testing.T, e *sweepEnv, production, trial, want string) {
	t.Helper()
	before, _ := os.ReadFile(filepath.Join(e.dir, production))
	for round := 1; round <= 2; round++ {
		e.mustRun(0, "apply", "latest", trial, "--force")
		if got, _ := os.ReadFile(filepath.Join(e.dir, production)); !strings.Contains(string(got), want) {
			t.Errorf("round %d: the production config after apply lacks %q:\n%s", round, want, got)
		}
		if _, stderr, code := e.run("rollback"); code != 0 {
			log, _ := os.ReadFile(filepath.Join(e.dir, "vec.log"))
			cfg, _ := os.ReadFile(filepath.Join(e.dir, production))
			t.Fatalf("round %d: rollback: exit %d\n%s\nservice log:\n%s\nconfig:\n%s", round, code, stderr, log, cfg)
		}
		if got, _ := os.ReadFile(filepath.Join(e.dir, production)); !bytes.Equal(got, before) {
			t.Errorf("round %d: the production config after rollback:\n%s\nwant:\n%s", round, got, before)
		}
	}
}

func readQueryResults(t *testing.T, path string) []runs.QueryResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []runs.QueryResult
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r runs.QueryResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	return out
}

func sameHits(got, want []runs.RankedDoc) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].DocID != want[i].DocID || got[i].Score != want[i].Score {
			return false
		}
	}
	return true
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// cosine is the service's cosine, computed here: float64 over the
// float32 components, in index order.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
