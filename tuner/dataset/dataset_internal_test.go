package dataset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestJudgesByID: a BEIR golden set (by its format, or a folder without
// one) judges by document id only, so its corpus is read for the ids;
// native and TREC sets may search texts (passage_substring), so theirs is
// read whole.
func TestJudgesByID(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "golden.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    experiments.DatasetConfig
		want bool
	}{
		{"beir format", experiments.DatasetConfig{Path: dir, Format: experiments.FormatBEIR}, true},
		{"folder", experiments.DatasetConfig{Path: dir}, true},
		{"native file", experiments.DatasetConfig{Path: file}, false},
		{"native format", experiments.DatasetConfig{Path: dir, Format: experiments.FormatNative}, false},
		{"trec", experiments.DatasetConfig{Path: file, Format: experiments.FormatTREC}, false},
		{"missing path", experiments.DatasetConfig{Path: filepath.Join(dir, "none")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgesByID(tc.d); got != tc.want {
				t.Errorf("judgesByID = %v, want %v", got, tc.want)
			}
		})
	}
}
