package shadow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// TestResolveSide: log and shadow name the logged answers, a file is an
// engine config resolved beside itself, and a reference naming nothing is
// the user's error; run: opens the store only then.
func TestResolveSide(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "engine.yaml")
	if err := os.WriteFile(cfg, []byte("fusion: {method: rrf}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opened := 0
	open := func() (*runs.Store, error) { opened++; return runs.Open(filepath.Join(dir, "runs")) }
	for _, tc := range []struct {
		ref, name string
		log       bool
		shadow    bool
		input     bool // a inputerr.Error
	}{
		{ref: "log", name: "log", log: true},
		{ref: "shadow", name: "shadow (logged live)", shadow: true},
		{ref: cfg, name: cfg},
		{ref: filepath.Join(dir, "missing.yaml"), input: true},
		{ref: "run:nosuchrun", input: true},
	} {
		s, err := ResolveSide(tc.ref, open)
		var ie *inputerr.Error
		if tc.input {
			if !errors.As(err, &ie) {
				t.Errorf("%s: err = %v, want an input error", tc.ref, err)
			}
			continue
		}
		if err != nil || s.Name != tc.name || s.Log != tc.log || s.Shadow != tc.shadow {
			t.Errorf("%s: %+v, %v", tc.ref, s, err)
		}
		if tc.ref == cfg && (string(s.Config) != "fusion: {method: rrf}\n" || s.BaseDir != dir) {
			t.Errorf("%s: config %q in %s, want the file's text in %s", tc.ref, s.Config, s.BaseDir, dir)
		}
	}
	if opened != 1 {
		t.Errorf("the store was opened %d times, want once (for run:)", opened)
	}
}

// TestReadLogsAndJudgments: a missing log or qrels file is the user's
// error; no qrels and no dataset is no judgments.
func TestReadLogsAndJudgments(t *testing.T) {
	var ie *inputerr.Error
	if _, err := ReadLogs(filepath.Join(t.TempDir(), "q.log"), false); !errors.As(err, &ie) {
		t.Errorf("missing log: err = %v, want an input error", err)
	}
	if _, err := ReadJudgments(context.Background(), filepath.Join(t.TempDir(), "q.qrels"), "", ""); !errors.As(err, &ie) {
		t.Errorf("missing qrels: err = %v, want an input error", err)
	}
	if j, err := ReadJudgments(context.Background(), "", "", ""); j != nil || err != nil {
		t.Errorf("no judgments: %v, %v", j, err)
	}
}
