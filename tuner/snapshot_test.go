package tuner_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestSnapshotCopiesLoadedBytes: a run's golden.json is the bytes the set
// was loaded and hashed from, even when the file changed after loading
// (the snapshot does not read it again), and its hash file names their
// sha256; the settings and experiment file are written beside it.
func TestSnapshotCopiesLoadedBytes(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.json")
	loaded := []byte(`{"queries": [{"id": "q1", "query": "boiler pressure", "expected_passages": [{"doc_id": "d1", "relevance": "high"}]}]}` + "\n")
	if err := os.WriteFile(golden, loaded, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Open(experiments.DatasetConfig{Path: golden, Format: experiments.FormatNative}.WithDefaults(), "", filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, []byte(`{"queries": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := runs.Open(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "test"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ef := &experiments.ExperimentFile{Path: filepath.Join(dir, "exp.json"), Raw: []byte(`{"grid": {}}`)}
	if err := tuner.Snapshot(run, map[string]any{"runs_dir": "runs"}, ef, ds); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(run.Dir, "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(loaded) {
		t.Errorf("snapshot golden.json:\n%s\nwant the bytes loaded:\n%s", got, loaded)
	}
	sum := sha256.Sum256(got)
	if h := hex.EncodeToString(sum[:]); h != ds.Golden.Hash {
		t.Errorf("snapshot sha256 %s, the set's hash %s", h, ds.Golden.Hash)
	}
	for _, name := range []string{"golden.json.sha256.json", runs.SettingsFile, tuner.ExperimentsSnapshotName(ef.Path)} {
		if _, err := os.Stat(filepath.Join(run.Dir, name)); err != nil {
			t.Error(err)
		}
	}
}
