package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepMissingJudgedDocs: a sweep whose golden set judges a document
// the corpus lacks stops before anything is written (exit 2, the id with a
// did-you-mean); with dataset.allow_missing_docs it runs, warning with the
// counts.
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
		code        int
		want        string
	}{
		{"refused", "", 2, `golden.json:2:70: doc_id: query "q1": document "doc_12" is not in the corpus (did you mean "doc-12" or "doc-13"?)`},
		{"allowed", ", allow_missing_docs: true", 0, "warning: judged documents not in the corpus: 1 (1 distinct ids: doc_12), kept since dataset.allow_missing_docs is true: they count as relevant but can never be retrieved; judged documents found: 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSweepEnv(t, "")
			c := e.write("corpus.jsonl", corpus)
			e.write("golden.json", golden)
			e.write("tune.yaml", strings.ReplaceAll(strings.Replace(settings, "%s", tc.extra, 1), "%s", c))
			exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
			stdout, stderr, code := e.run("--experiments", exp)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s\n%s", code, tc.code, tc.want, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(e.dir, "runs")); tc.code == 2 && err == nil {
				t.Errorf("the refused sweep wrote its runs directory")
			}
		})
	}
}
