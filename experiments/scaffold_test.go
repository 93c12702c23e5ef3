package experiments_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestScaffold: the experiment file tune init writes expands to the
// baseline and a 3 x 3 grid; the golden skeleton parses, but every
// placeholder is a problem at its line until it is written; with corpus
// documents the skeleton judges real ids spread over the corpus.
func TestScaffold(t *testing.T) {
	docs := []experiments.Document{{ID: "a", Text: "alpha text"}, {ID: "b", Text: "beta"}, {ID: "c", Text: "gamma"}, {ID: "d", Text: "delta"}, {ID: "e", Text: "eps"}, {ID: "f", Text: "zeta"}}
	tests := []struct {
		name    string
		corpus  string
		docs    []experiments.Document
		ids     []string
		corpusY string
		errs    int
	}{
		{"with a corpus", "../data/corpus.jsonl", docs, []string{"a", "c", "e"}, `corpus: "../data/corpus.jsonl"`, 3},
		{"without", "", nil, nil, "corpus: corpus.jsonl         # TODO: your documents", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := experiments.Scaffold(tt.corpus, tt.docs)
			if err != nil || len(files) != 3 {
				t.Fatalf("%v %d files", err, len(files))
			}
			if !strings.Contains(string(files[0].Data), tt.corpusY) {
				t.Errorf("tune.yaml lacks %q:\n%s", tt.corpusY, files[0].Data)
			}
			ef, err := experiments.ParseExperimentFile(files[1].Name, files[1].Data)
			if err != nil {
				t.Fatal(err)
			}
			if trials, _, err := ef.Expand(); err != nil || len(trials) != 10 {
				t.Errorf("experiment: %d trials, %v", len(trials), err)
			}
			_, err = experiments.ParseGoldenSet(files[2].Name, files[2].Data)
			if err == nil || strings.Count(err.Error(), "golden.yaml:") != tt.errs || !strings.Contains(err.Error(), "golden.yaml:9:5: queries[0].query:") {
				t.Fatalf("skeleton: %v", err)
			}
			filled := strings.NewReplacer(`"TODO: a question your users ask"`, "how", `"TODO: the id of a document that answers it"`, "x").Replace(string(files[2].Data))
			for _, id := range tt.ids {
				filled = strings.Replace(filled, `"TODO: a question document `+id, `"how `+id, 1)
			}
			gs, err := experiments.ParseGoldenSet(files[2].Name, []byte(filled))
			if err != nil {
				t.Fatalf("filled: %v\n%s", err, filled)
			}
			for i, id := range tt.ids {
				if got := gs.Queries[i].Judgments[0].DocID; got != id {
					t.Errorf("query %d judges %q, want %q", i, got, id)
				}
			}
		})
	}
}
