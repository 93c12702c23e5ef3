package tuner_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/tuner"
)

// TestExperimentsSnapshotName: a run keeps its experiment file as
// experiments.yaml or experiments.json by the file's extension.
func TestExperimentsSnapshotName(t *testing.T) {
	for path, want := range map[string]string{
		tuner.ShippedShortlist: "experiments.json",
		"a/b.YAML":             "experiments.yaml",
		"round1.yml":           "experiments.yaml",
		"x.json":               "experiments.json",
	} {
		if got := tuner.ExperimentsSnapshotName(path); got != want {
			t.Errorf("%q: got %q, want %q", path, got, want)
		}
	}
}
