package dataset

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// ExportWithRun writes the dataset as Export does and, when run is set (a
// recorded trial's ranking: TrialRunBytes), dir/TrialRunFile beside it.
// It returns the paths written, in order.
func ExportWithRun(ds *Dataset, format, dir string, run []byte) ([]string, error) {
	paths, err := Export(ds, format, dir)
	if err != nil || run == nil {
		return paths, err
	}
	p := filepath.Join(dir, TrialRunFile)
	if err := atomicfile.Write(p, run, 0o644); err != nil {
		return paths, err
	}
	return append(paths, p), nil
}

// ExportNotes are the lines to show before an export: the dataset's
// warnings and, when it exports one split, which one.
func (ds *Dataset) ExportNotes() []string {
	var notes []string
	for _, w := range ds.Warnings {
		notes = append(notes, fmt.Sprint("warning: ", w))
	}
	if ds.Config.Split != experiments.SplitAll {
		notes = append(notes, fmt.Sprintf("note: exporting the %s split (%d queries)", ds.Config.Split, len(ds.Queries)))
	}
	return notes
}

// GoldenArg is the dataset of a golden set named on the command line, in
// any format (detected): a BEIR folder brings its own corpus, any other
// file resolves against corpus (the settings' corpus).
func GoldenArg(path, corpus string) experiments.DatasetConfig {
	d := experiments.DatasetConfig{Path: path}
	if st, err := os.Stat(d.Path); err == nil && !st.IsDir() {
		d.Corpus = corpus
	}
	return d
}
