package settings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestRunConfig: the default settings run the shipped demo on the
// embedded engine: the config carries the manifest (tool, golden hash,
// backend kind), the queries, scorer and backend; a golden set with a
// category the settings do not know is the user's error, before any run
// exists.
func TestRunConfig(t *testing.T) {
	s := defaultSettings(t)
	ef, err := tuner.LoadExperiments("")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	c, ds, err := s.RunConfig(ef, "tune test", runs.NewRedactor(), &log)
	if err != nil {
		t.Fatal(err)
	}
	if c.Manifest.Tool != "tune test" || c.Manifest.Backend != KindEmbedded || c.Manifest.GoldenHash != ds.Golden.Hash || c.Manifest.Experiments != ef.Hash {
		t.Errorf("manifest %+v", c.Manifest)
	}
	if len(c.Queries) == 0 || len(c.Queries) != len(ds.Queries) || c.Scorer == nil || c.Backend == nil || c.Snapshot == nil {
		t.Errorf("config: %d queries (dataset %d), scorer %v, backend %v", len(c.Queries), len(ds.Queries), c.Scorer != nil, c.Backend != nil)
	}
	if ds.Config.ID != "demo" {
		t.Errorf("dataset id %q, want demo", ds.Config.ID)
	}

	golden := filepath.Join(t.TempDir(), "golden.json")
	if err := os.WriteFile(golden, []byte(`{"categories": ["a"], "queries": [{"id": "q1", "query": "x", "category": "b", "expected_passages": [{"doc_id": "d", "relevance": 1}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Dataset.Path = golden
	_, _, err = s.RunConfig(ef, "tune test", runs.NewRedactor(), &log)
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "golden.json") {
		t.Errorf("bad golden set: err = %v, want an input error naming the file", err)
	}
}
