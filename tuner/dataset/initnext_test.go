package dataset_test

import (
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/dataset"
)

// TestInitNext: without a corpus the next step starts by setting one;
// with a skeleton it goes to the golden set's queries; with the user's
// dataset it says what the dataset holds, then checks the experiment file
// before the sweep.
func TestInitNext(t *testing.T) {
	dir := "proj"
	golden := filepath.Join(dir, "golden.yaml")
	run := "then run 'tune --experiments experiment.yaml' in proj\n"
	skeleton := "write the queries of " + golden + " ('tune check " + golden + "' lists what is left), " + run
	d := &experiments.ProjectDataset{Kind: "a BEIR folder", NumQueries: 30, NumJudgments: 696, Scale: "binary (0-1: relevant = 1)", Primary: "NDCG@10"}
	for _, tc := range []struct {
		name string
		in   dataset.Initialized
		want string
	}{
		{"skeleton with a corpus", dataset.Initialized{Corpus: "c.jsonl"}, "next: " + skeleton},
		{"skeleton without", dataset.Initialized{}, "next: set dataset.corpus in " + filepath.Join(dir, "tune.yaml") + ", " + skeleton},
		{"dataset", dataset.Initialized{Corpus: "../med/corpus.jsonl", Docs: 1033, Dataset: d},
			"dataset: a BEIR folder, 30 judged queries, 696 judgments; corpus of 1033 documents\ngrades: binary (0-1: relevant = 1)\nprimary: NDCG@10\n" +
				"next: run 'tune check experiment.yaml' in proj (the checks a sweep runs before its first trial), " + run},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dataset.InitNext(dir, &tc.in); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
