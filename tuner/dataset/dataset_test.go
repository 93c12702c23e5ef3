package dataset_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// TestOpenDatasetDemo: with no path the shipped demo is extracted into
// the cache directory, and its passage judgments resolve to documents.
func TestOpenDatasetDemo(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", cache)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ds.Config.Path, cache) || filepath.Base(ds.Config.Path) != "golden.json" {
		t.Errorf("config path %q: want the demo's golden.json under %s", ds.Config.Path, cache)
	}
	if ds.Corpus != filepath.Join(filepath.Dir(ds.Config.Path), "corpus.jsonl") || ds.Config.Format != experiments.FormatNative {
		t.Errorf("corpus %q, format %q: want the demo's corpus, native", ds.Corpus, ds.Config.Format)
	}
	if len(ds.Queries) != len(ds.Golden.Queries) || len(ds.Queries) == 0 {
		t.Fatalf("%d queries for %d in the golden set", len(ds.Queries), len(ds.Golden.Queries))
	}
	// q001 judges one passage by substring; it must have become a document.
	q := ds.Queries[0]
	if q.ID != "q001" || len(q.Judgments) < 3 {
		t.Fatalf("q001: %+v", q)
	}
	for doc := range q.Judgments {
		if strings.Contains(doc, " ") {
			t.Errorf("q001: judgment %q is not a document id", doc)
		}
	}
	if got, want := ds.Describe(), "golden set "+ds.Config.Path+", split all, grades "+ds.Golden.Scale.String(); got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}

	dir := t.TempDir()
	store, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Snapshot(run); err != nil {
		t.Fatal(err)
	}
	copied, _ := os.ReadFile(filepath.Join(run.Dir, "golden.json"))
	orig, _ := os.ReadFile(ds.Config.Path)
	if len(copied) == 0 || string(copied) != string(orig) {
		t.Error("snapshot: golden.json is not a copy of the golden set")
	}
}

// TestOpenDatasetInputErrors: the user's files failing to load are input
// errors naming the setting.
func TestOpenDatasetInputErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.json")
	tests := []struct {
		name string
		d    experiments.DatasetConfig
		want string
	}{
		{name: "missing golden set", d: experiments.DatasetConfig{Path: missing}, want: "dataset.path: "},
		{name: "missing corpus", d: experiments.DatasetConfig{Path: "../../experiments/testdata/golden/basic.good.json", Corpus: missing}, want: "dataset.corpus: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dataset.Open(tt.d.WithDefaults(), "", t.TempDir())
			var ie *inputerr.Error
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an inputerr.Error starting %q", err, tt.want)
			}
		})
	}
}
