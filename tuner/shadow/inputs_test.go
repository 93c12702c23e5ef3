package shadow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
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

// TestRequestBackendSides: production and settings:FILE need a backend
// to open; run sides on a kind other than the embedded engine open the
// trial's parameters on the settings' backend.
func TestRequestBackendSides(t *testing.T) {
	var opened []map[string]any
	open := func(p map[string]any) Opener {
		opened = append(opened, p)
		return func(context.Context, func(context.Context, backend.Searcher) error) error { return nil }
	}
	for _, tc := range []struct {
		name, ref, kind, err string
		withBackend          bool
		wantName             string
		wantParams           map[string]any
	}{
		{name: "production without settings", ref: "production", err: "shadow: production: no settings backend to search (give --config)"},
		{name: "settings without a file", ref: "settings:", withBackend: true, err: `shadow: "settings:": want settings:FILE, a settings file whose backend answers`},
		{name: "production of http runs as it is", ref: "production", kind: "http", withBackend: true, wantName: "production (http)", wantParams: nil},
		{name: "production of postgres is brought up", ref: "production", kind: "postgres", withBackend: true, wantName: "production (postgres)", wantParams: map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened = nil
			r := Request{Kind: tc.kind}
			if tc.withBackend {
				r.Backend = open
			}
			s, err := r.side(tc.ref)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || s.Name != tc.wantName || s.Open == nil || len(opened) != 1 || (opened[0] == nil) != (tc.wantParams == nil) {
				t.Errorf("side %+v, opened %v, err %v", s, opened, err)
			}
		})
	}
}
