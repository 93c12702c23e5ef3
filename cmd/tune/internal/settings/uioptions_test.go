package settings

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestUIOptions: the default settings give the web app the demo's every
// query, a scorer, the backend and the corpus's documents; a pool file
// that does not exist is an error before anything is served.
func TestUIOptions(t *testing.T) {
	s := defaultSettings(t)
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	o, err := s.UIOptions(store, "", runs.NewRedactor(), &log)
	if err != nil {
		t.Fatal(err)
	}
	if o.Store != store || o.Dataset == nil || len(o.Dataset.Queries) == 0 || o.Scorer == nil || o.Backend == nil || o.Docs == nil || o.Log == nil || o.Pool != nil {
		t.Errorf("options %+v", o)
	}
	if _, err := s.UIOptions(store, filepath.Join(t.TempDir(), "none.jsonl"), runs.NewRedactor(), &log); err == nil {
		t.Error("a missing pool file: no error")
	}
}
