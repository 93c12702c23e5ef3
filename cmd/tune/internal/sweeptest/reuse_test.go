package sweeptest_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestSweepReusesSameChunks: on the embedded backend a sweep runs one
// trial of each group of trials that cut the corpus alike with equal
// other settings (chunk sizes above the demo's longest document, a
// baseline leaving chunk.size at the default beside one that writes it
// out) and reuses its results for the others; the leaderboard shows the
// trials with the same rankings as one row, and leaderboard.json keeps
// every trial, marking same_as. Live, three restarts run the three
// groups; in the default mode (auto) the replay reuses alike.
func TestSweepReusesSameChunks(t *testing.T) {
	for _, mode := range []string{"live", "auto"} {
		t.Run(mode, func(t *testing.T) { testSweepReusesSameChunks(t, mode) })
	}
}

func testSweepReusesSameChunks(t *testing.T, mode string) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"tune.yaml": "runs_dir: runs\neval:\n  concurrency: 4\n", "chunks.json": `{
  "baseline": {"params": {"fusion.k": 60}},
  "experiments": [
    {"name": "whole-documents", "params": {"fusion.k": 60, "chunk.size": 0}},
    {"name": "c4000", "params": {"fusion.k": 60, "chunk.size": 4000}},
    {"name": "c5000", "params": {"fusion.k": 60, "chunk.size": 5000, "chunk.overlap": 100}},
    {"name": "c200", "params": {"fusion.k": 60, "chunk.size": 200}}
  ]
}`})
	r := sweeptest.Sweep(t, "tune.yaml", "chunks.json", sweeptest.Options{Mode: mode, Verify: tuner.DefaultVerify})
	// One chunk per document ("d#0") is not whole documents ("d") to the
	// fingerprint, so c4000 runs; its rankings are the same all the same.
	mustContain(t, "leaderboard", leaderboardText(t, r), "baseline (+3 same)", "c200 ", "same results as baseline (one row): c4000, c5000, whole-documents")
	if mode == "live" {
		mustContain(t, "log", r.Log, "5 trials (0 resumed), 3 backend restarts")
	}
	data, err := os.ReadFile(filepath.Join(r.Run.Dir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb struct {
		Trials []struct {
			Name       string `json:"name"`
			Mode       string `json:"mode"`
			SameAs     string `json:"same_as"`
			ReusedFrom string `json:"reused_from"`
		} `json:"trials"`
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{ // mode, reused_from, same_as
		"baseline":        {"live", "", ""},
		"whole-documents": {"reused", "baseline", "baseline"},
		"c4000":           {"live", "", "baseline"},
		"c5000":           {"reused", "c4000", "baseline"},
		"c200":            {"live", "", ""},
	}
	if len(lb.Trials) != len(want) {
		t.Fatalf("%d trials in leaderboard.json, want %d", len(lb.Trials), len(want))
	}
	for _, tr := range lb.Trials {
		got := [3]string{tr.Mode, tr.ReusedFrom, tr.SameAs}
		if mode != "live" && want[tr.Name][0] == "live" && got[0] != "reused" {
			got[0] = "live" // replayed or verified: run, not reused
		}
		if got != want[tr.Name] {
			t.Errorf("%s: mode, reused_from, same_as %q, want %q", tr.Name, got, want[tr.Name])
		}
	}
}

// TestSweepMissingJudgedDocs: a sweep whose golden set judges a document
// the corpus lacks stops before anything is written (the user's input
// error: the id with a did-you-mean); with dataset.allow_missing_docs it
// runs, warning with the counts.
func TestSweepMissingJudgedDocs(t *testing.T) {
	const corpus = `{"_id": "doc-12", "title": "Boiler pressure", "text": "Low boiler pressure: top up the system to 1.5 bar."}
{"_id": "doc-13", "title": "Radiators", "text": "Bleed a cold radiator with the key."}
{"_id": "faq", "title": "Questions", "text": "Frequently asked questions about heating."}
`
	const golden = `{"queries": [
  {"id": "q1", "query": "boiler pressure low", "expected_passages": [{"doc_id": "doc_12", "relevance": 3}, {"doc_id": "faq", "relevance": 1}]},
  {"id": "q2", "query": "cold radiator", "expected_passages": [{"doc_id": "doc-13", "relevance": 3}]}
]}`
	settings := "runs_dir: runs\ndataset: {path: golden.json, corpus: corpus.jsonl%s}\nbackend:\n  engine:\n    corpus: {path: %s}\n    dense: {model: hash-64}\n"
	for _, tc := range []struct {
		name, extra string
		refused     bool
		want        string
	}{
		{"refused", "", true, `golden.json:2:70: doc_id: query "q1": document "doc_12" is not in the corpus (did you mean "doc-12" or "doc-13"?)`},
		{"allowed", ", allow_missing_docs: true", false, "warning: judged documents not in the corpus: 1 (1 distinct ids: doc_12), kept since dataset.allow_missing_docs is true: they count as relevant but can never be retrieved; judged documents found: 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			dir := t.TempDir()
			t.Chdir(dir)
			c := filepath.Join(dir, "corpus.jsonl")
			writeFiles(t, map[string]string{"corpus.jsonl": corpus, "golden.json": golden,
				"tune.yaml": strings.ReplaceAll(strings.Replace(settings, "%s", tc.extra, 1), "%s", c),
				"exp.json":  `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`})
			r, err := sweeptest.Try("tune.yaml", "exp.json", sweeptest.Options{Verify: tuner.DefaultVerify})
			var ie *inputerr.Error
			switch {
			case tc.refused && (!errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want an input error containing %q", err, tc.want)
			case !tc.refused && (err != nil || !strings.Contains(r.Log, tc.want)):
				t.Fatalf("err = %v; log lacks %q:\n%s", err, tc.want, r.Log)
			}
			if _, err := os.Stat("runs"); tc.refused && err == nil {
				t.Errorf("the refused sweep wrote its runs directory")
			}
		})
	}
}
