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

// TestSweepConfig: the default settings and the shipped shortlist give a
// sweep on the embedded engine with its trials and replay (auto) set; an
// experiment file that does not parse and an unknown mode are input
// errors before any run exists.
func TestSweepConfig(t *testing.T) {
	s := defaultSettings(t)
	var log bytes.Buffer
	req := tuner.SweepRequest{Mode: string(tuner.ModeAuto), Verify: tuner.DefaultVerify, Args: []string{"--mode", "auto"}}
	c, err := s.SweepConfig(req, "", runs.NewRedactor(), &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Trials) == 0 || c.Replay == nil || c.Replay.Mode != tuner.ModeAuto || c.Log != &log || len(c.Manifest.Args) != 2 {
		t.Errorf("config: %d trials, replay %+v, args %q", len(c.Trials), c.Replay, c.Manifest.Args)
	}

	bad := filepath.Join(t.TempDir(), "exp.yaml")
	if err := os.WriteFile(bad, []byte("trials: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, mode, want string
	}{
		{"bad experiment file", bad, "auto", "exp.yaml"},
		{"bad mode", "", "fast", "--mode: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req
			r.Mode = tt.mode
			_, err := s.SweepConfig(r, tt.file, runs.NewRedactor(), &log)
			var ie *inputerr.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want an input error containing %q", err, tt.want)
			}
		})
	}
}

// TestQualityConfig: a check scores every query of the demo unless a
// split is set, and carries the golden set and corpus for its failure
// report.
func TestQualityConfig(t *testing.T) {
	s := defaultSettings(t)
	var log bytes.Buffer
	c, err := s.QualityConfig(runs.NewRedactor(), &log)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dataset.Split != "all" || c.Golden == nil || len(c.Queries) != len(c.Golden.Queries) || c.Manifest.Tool != "tune check-quality" || c.Log != &log {
		t.Errorf("split %q, %d queries of %v, tool %q", s.Dataset.Split, len(c.Queries), c.Golden != nil, c.Manifest.Tool)
	}
}
