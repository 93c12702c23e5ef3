package dataset_test

import (
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"
)

// TestInitNext: without a corpus the next step starts by setting one;
// with one it goes straight to the golden set's queries.
func TestInitNext(t *testing.T) {
	dir := "proj"
	golden := filepath.Join(dir, "golden.yaml")
	rest := "write the queries of " + golden + " ('tune check " + golden + "' lists what is left), then run 'tune --experiments experiment.yaml' in proj\n"
	if got, want := dataset.InitNext(dir, "c.jsonl"), "next: "+rest; got != want {
		t.Errorf("with corpus:\n%q\nwant\n%q", got, want)
	}
	if got, want := dataset.InitNext(dir, ""), "next: set dataset.corpus in "+filepath.Join(dir, "tune.yaml")+", "+rest; got != want {
		t.Errorf("without corpus:\n%q\nwant\n%q", got, want)
	}
}
