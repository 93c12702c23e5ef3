package dataset_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestExportWithRun: the demo exported as TREC with a trial's run file
// gives topics, qrels and run.trec, in that order, the run file byte for
// byte; a golden-set file argument takes the settings' corpus, a folder
// its own; a split export is noted.
func TestExportWithRun(t *testing.T) {
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := []byte("q001 Q0 d1 1 1.0 t\n")
	paths, err := dataset.ExportWithRun(ds, dataset.ExportTREC, dir, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || paths[2] != filepath.Join(dir, dataset.TrialRunFile) {
		t.Fatalf("paths %q", paths)
	}
	if got, _ := os.ReadFile(paths[2]); string(got) != string(run) {
		t.Errorf("run file %q", got)
	}
	if notes := ds.ExportNotes(); slices.ContainsFunc(notes, func(n string) bool { return n[:5] == "note:" }) {
		t.Errorf("notes %q for an export of every query", notes)
	}
	ds.Config.Split = experiments.SplitDev
	if notes := ds.ExportNotes(); len(notes) == 0 || notes[len(notes)-1][:25] != "note: exporting the dev s" {
		t.Errorf("notes %q for the dev split", notes)
	}

	file := filepath.Join(dir, "golden.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := dataset.GoldenArg(file, "corpus.jsonl"); d.Path != file || d.Corpus != "corpus.jsonl" {
		t.Errorf("file: %+v", d)
	}
	if d := dataset.GoldenArg(dir, "corpus.jsonl"); d.Path != dir || d.Corpus != "" {
		t.Errorf("folder: %+v", d)
	}
}
