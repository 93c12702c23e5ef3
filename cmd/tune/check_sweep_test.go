package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckIsTheSweepsCheck: with a tune.yaml beside it, tune check of an
// experiment file runs the checks a sweep of it runs before its first
// trial, through the same code: what the sweep refuses at its start
// (exit 2) check refuses with the same message — an embedder the engine
// does not know, a normalization the baseline hands to an rrf trial on a
// backend that refuses it, a misspelt parameter with its did-you-mean —
// and it writes nothing: no run directory, no cache. A file the sweep
// accepts is ok, with the golden set, grade scale and primary it would
// run with.
func TestCheckIsTheSweepsCheck(t *testing.T) {
	demo, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../experiments/demo/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	const embedded = "runs_dir: runs\ndataset: {path: golden.json, corpus: corpus.jsonl}\n"
	const weaviate = "runs_dir: runs\ndataset: {path: golden.json, corpus: corpus.jsonl}\nbackend:\n  kind: weaviate\n  weaviate: {url: \"http://127.0.0.1:1\", model: hash-16, corpus: corpus.jsonl}\n"
	for _, tc := range []struct {
		name, settings, experiment string
		want                       string // in both stderrs ("" for a good file)
	}{
		{"unknown embedder", embedded, "baseline:\n  params: {fusion.method: rrf}\ngrid:\n  dense.model: [minilm]\n",
			`exp.yaml:4:3: grid.params: trial "dense.model=minilm": engine config: dense.model "minilm": embed: unknown embedder "minilm"`},
		{"inherited normalization", weaviate, "baseline:\n  params: {fusion.method: linear, fusion.normalization: min_max}\nexperiments:\n  - name: rrf\n    params: {fusion.method: rrf}\n",
			`rankedFusion (fusion.method rrf) normalizes nothing; drop it`},
		{"misspelt parameter", embedded, "baseline:\n  params: {fusion.method: rrf}\ngrid:\n  chunk_size: [128, 256]\n",
			`exp.yaml:4:3: grid.chunk_size: unknown parameter "chunk_size" (did you mean "chunk.size"?`},
		{"good", embedded, "baseline:\n  params: {fusion.method: rrf, fusion.k: 60}\ngrid:\n  fusion.k: [20, 80]\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSweepEnv(t, tc.settings)
			e.write("corpus.jsonl", string(demo))
			e.write("golden.json", string(golden))
			e.write("exp.yaml", tc.experiment)
			before := listTree(t, e.dir)
			stdout, stderr, code := e.run("check", "exp.yaml")
			if after := listTree(t, e.dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("check wrote %v", diff(after, before))
			}
			if tc.want == "" {
				if code != 0 {
					t.Fatalf("check: exit %d\n%s", code, stderr)
				}
				mustContain(t, "check's stdout", stdout, "ok exp.yaml (experiments: 3 trials in 1 index group)",
					"checked as a sweep with tune.yaml starts: 90 queries (golden set golden.json, split all, grades 0-3",
					"primary: default composite")
				return
			}
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("check: exit %d, want 2 with %q\n%s", code, tc.want, stderr)
			}
			_, sweepErr, sweepCode := e.run("--experiments", "exp.yaml")
			if sweepCode != 2 || !strings.Contains(sweepErr, tc.want) {
				t.Errorf("sweep: exit %d, want 2 with %q\n%s", sweepCode, tc.want, sweepErr)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "runs")); !os.IsNotExist(err) {
				t.Errorf("the refused sweep made its runs directory")
			}
		})
	}
}

// TestCheckGoldenWithSettings: a golden set checked with --config is read
// on the settings' grade scale (dataset.grades), as a sweep reads it;
// without them on its own.
func TestCheckGoldenWithSettings(t *testing.T) {
	e := newSweepEnv(t, "")
	books, _ := filepath.Abs("../../experiments/testdata/des058")
	cfg := e.write("cfg.yaml", "dataset:\n  path: "+filepath.Join(books, "golden.json")+"\n  corpus: "+filepath.Join(books, "corpus.jsonl")+"\n  grades: {max: 4}\n")
	stdout, stderr, code := e.run("check", "--config", cfg, filepath.Join(books, "golden.json"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	mustContain(t, "stdout", stdout, "9 queries, 11 judgments; 10 judged documents found in a corpus of 12", "grades: 0-4 (relevant >= 1, strong >= 3, exact >= 4)")
	mustContain(t, "stderr", stderr, "query fields kept as metadata, not interpreted: retrieval_intent (9 queries)")
	stdout, _, _ = e.run("check", filepath.Join(books, "golden.json"))
	mustContain(t, "stdout without settings", stdout, "grades: 0-3 (relevant >= 1, strong >= 2, exact >= 3)")
}
