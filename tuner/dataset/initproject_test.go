package dataset_test

import (
	"errors"
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
	paths, err := dataset.InitProject(dir, "")
	if err != nil {
		t.Fatal(err)
	}
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
	_, err = dataset.InitProject(dir, "")
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not overwriting") {
		t.Fatalf("second init: %v, want an input error refusing to overwrite", err)
	}
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("second init wrote %s", paths[0])
	}
}
