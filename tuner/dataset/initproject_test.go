package dataset_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// TestInitProject: the starter files are written into a new directory;
// a second init there refuses (an input error) and writes nothing.
func TestInitProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	in, err := dataset.InitProject(dir, dataset.InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths := in.Paths
	for _, name := range []string{experiments.InitSettingsFile, experiments.InitExperimentFile, experiments.InitGoldenFile} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if len(paths) != 3 {
		t.Errorf("paths = %q, want the 3 files", paths)
	}
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	_, err = dataset.InitProject(dir, dataset.InitOptions{})
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not overwriting") {
		t.Fatalf("second init: %v, want an input error refusing to overwrite", err)
	}
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("second init wrote %s", paths[0])
	}
}

// TestInitProjectDataset: tune init --dataset reads the user's golden set
// as a sweep would and writes tune.yaml pointing at it (paths relative to
// the project), with no skeleton; a BEIR folder without a test split uses
// its only one; what cannot be read is an input error and nothing is
// written.
func TestInitProjectDataset(t *testing.T) {
	books := "../../experiments/testdata/des058"
	absBooks, _ := filepath.Abs(books)
	for _, tc := range []struct {
		name    string
		o       dataset.InitOptions
		paths   map[string]string // tune.yaml key: the path it names, from here
		extra   string            // in tune.yaml too
		kind    string
		queries int
		scale   string
		warns   int
		err     string
	}{
		{name: "a BEIR folder with one split", o: dataset.InitOptions{Dataset: "testdata/init/beir-dev"},
			paths: map[string]string{"path": "testdata/init/beir-dev", "corpus": "testdata/init/beir-dev/corpus.jsonl"}, extra: `qrels_split: "dev"`,
			kind: "a BEIR folder", queries: 2, scale: "binary (0-1: relevant = 1)"},
		{name: "the book-and-chapter format", o: dataset.InitOptions{Dataset: books + "/golden.json", Corpus: books + "/corpus.jsonl"},
			paths: map[string]string{"path": books + "/golden.json", "corpus": books + "/corpus.jsonl"},
			kind:  "a golden set", queries: 9, scale: "0-3 (relevant >= 1, strong >= 2, exact >= 3)", warns: 1},
		{name: "absolute paths stay absolute", o: dataset.InitOptions{Dataset: absBooks + "/golden.json", Corpus: absBooks + "/corpus.jsonl"},
			paths: map[string]string{"path": absBooks + "/golden.json", "corpus": absBooks + "/corpus.jsonl"},
			kind:  "a golden set", queries: 9, scale: "0-3 (relevant >= 1, strong >= 2, exact >= 3)", warns: 1},
		{name: "a corpus given as its BEIR folder", o: dataset.InitOptions{Dataset: "testdata/init/beir-dev", Corpus: "testdata/init/beir-splits"},
			paths: map[string]string{"corpus": "testdata/init/beir-splits/corpus.jsonl"}, kind: "a BEIR folder", queries: 2, scale: "binary (0-1: relevant = 1)"},
		{name: "several splits", o: dataset.InitOptions{Dataset: "testdata/init/beir-splits"},
			err: "--dataset testdata/init/beir-splits: no qrels/test.tsv, and several other splits (dev, train): choose one with --qrels-split"},
		{name: "a split it lacks", o: dataset.InitOptions{Dataset: "testdata/init/beir-splits", QrelsSplit: "test"},
			err: `--qrels-split "test": testdata/init/beir-splits has no qrels/test.tsv (it has: dev, train)`},
		{name: "TREC topics without qrels", o: dataset.InitOptions{Dataset: "testdata/init/topics.tsv"},
			err: "--dataset testdata/init/topics.tsv: TREC topics need their judgments: give the qrels file with --judgments"},
		{name: "judged documents the corpus lacks", o: dataset.InitOptions{Dataset: "../../experiments/testdata/golden/beir.good"},
			err: `document "300" is not in the corpus`},
		{name: "no such dataset", o: dataset.InitOptions{Dataset: "testdata/init/nope"}, err: "--dataset: stat testdata/init/nope: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "proj")
			in, err := dataset.InitProject(dir, tc.o)
			if tc.err != "" {
				var ie *inputerr.Error
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want an input error with %q", err, tc.err)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("a refused init made %s", dir)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Paths) != 2 || in.Dataset == nil || in.Dataset.Kind != tc.kind || in.Dataset.NumQueries != tc.queries || in.Dataset.Scale != tc.scale || len(in.Warnings) != tc.warns {
				t.Errorf("wrote %q, dataset %+v, warnings %q", in.Paths, in.Dataset, in.Warnings)
			}
			data, err := os.ReadFile(filepath.Join(dir, "tune.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			settings := string(data)
			for key, path := range tc.paths {
				abs, _ := filepath.Abs(path)
				rel, err := filepath.Rel(dir, abs)
				if err != nil {
					t.Fatal(err)
				}
				if filepath.IsAbs(path) {
					rel = path
				}
				if want := fmt.Sprintf("%s: %q", key, filepath.ToSlash(rel)); !strings.Contains(settings, want) {
					t.Errorf("tune.yaml lacks %s:\n%s", want, settings)
				}
			}
			if !strings.Contains(settings, tc.extra) {
				t.Errorf("tune.yaml lacks %s:\n%s", tc.extra, settings)
			}
		})
	}
}

// TestInitProjectBEIRCorpus: --corpus may name a BEIR folder: the
// skeleton judges the documents of its corpus.jsonl, which tune.yaml
// names.
func TestInitProjectBEIRCorpus(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	in, err := dataset.InitProject(dir, dataset.InitOptions{Corpus: "testdata/init/beir-dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Paths) != 3 || in.Docs != 3 || !strings.HasSuffix(in.Corpus, "testdata/init/beir-dev/corpus.jsonl") {
		t.Errorf("wrote %q, %d documents of %q", in.Paths, in.Docs, in.Corpus)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "golden.yaml"))
	if err != nil || !strings.Contains(string(golden), "{doc_id: \"d1\", relevance: 3}") {
		t.Errorf("the skeleton judges no document of the folder's corpus: %v\n%s", err, golden)
	}
}
