package experiments_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestScaffold: the experiment file tune init writes expands to the
// baseline, the two references and a 3 x 3 grid; the golden skeleton
// parses, but every
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
			files, err := experiments.Scaffold(experiments.Project{Corpus: tt.corpus, Docs: tt.docs})
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
			if trials, warnings, err := ef.Expand(); err != nil || len(trials) != 12 || len(warnings) > 0 {
				t.Errorf("experiment: %d trials, %v, warnings %q", len(trials), err, warnings)
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

// TestScaffoldDataset: given the user's golden set, tune.yaml points at it
// (its judgments and a qrels split other than test too), says its grade
// scale and what the default primary is on it as comments, keeps
// primary: default as the setting, names lsa-256 vectors, and no skeleton
// is written.
func TestScaffoldDataset(t *testing.T) {
	d := &experiments.ProjectDataset{Kind: "a BEIR folder", Path: "../med", QrelsSplit: "dev", NumQueries: 30, NumJudgments: 696,
		Scale: "binary (0-1: relevant = 1)", Primary: "NDCG@10 (the default for binary judgments)"}
	files, err := experiments.Scaffold(experiments.Project{Corpus: "../med/corpus.jsonl", Dataset: d})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Name != "tune.yaml" || files[1].Name != "experiment.yaml" {
		t.Fatalf("files %v, want tune.yaml and experiment.yaml only", files)
	}
	settings := string(files[0].Data)
	for _, want := range []string{
		"  # a BEIR folder: 30 judged queries, 696 judgments\n  path: \"../med\"\n  qrels_split: \"dev\"\n  corpus: \"../med/corpus.jsonl\"\n",
		"  #   binary (0-1: relevant = 1)\n",
		"  primary: default ",
		"  # On this set, at init, default is: NDCG@10 (the default for binary judgments)\n",
		"      model: lsa-256 ",
		"# gates: [\"Exact_Success@3 >= 0.8\"]",
	} {
		if !strings.Contains(settings, want) {
			t.Errorf("tune.yaml lacks %q:\n%s", want, settings)
		}
	}
	if strings.Contains(settings, "hash-384") || strings.Contains(settings, "golden.yaml") || strings.Contains(settings, "judgments: ") {
		t.Errorf("tune.yaml names hash-384, the skeleton or an empty judgments file:\n%s", settings)
	}
}

// TestScaffoldReferences: the starter experiment's references are named
// ReferenceName and run their retriever alone (retrievers lists only it),
// which is how later code recognizes them; every other trial fuses both.
func TestScaffoldReferences(t *testing.T) {
	files, err := experiments.Scaffold(experiments.Project{})
	if err != nil {
		t.Fatal(err)
	}
	ef, err := experiments.ParseExperimentFile(files[1].Name, files[1].Data)
	if err != nil {
		t.Fatal(err)
	}
	trials, _, err := ef.Expand()
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{}
	for _, tr := range trials {
		if rs, ok := tr.Params["retrievers"]; ok {
			refs[tr.Name] = fmt.Sprint(rs)
		}
	}
	want := map[string]string{experiments.ReferenceName("bm25"): "[bm25]", experiments.ReferenceName("dense"): "[dense]"}
	if !maps.Equal(refs, want) {
		t.Errorf("trials setting retrievers: %v, want %v", refs, want)
	}
}
