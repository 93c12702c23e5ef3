package main

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrafficEndToEnd runs the whole experiment on a smaller traffic
// (400 searches): a real tune serve with its query log, real feedback
// over loopback HTTP, tune harvest with implicit labels in a real SQLite
// label store, a real sweep and tune shadow against the log.
func TestTrafficEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tune and runs a sweep")
	}
	bin := filepath.Join(t.TempDir(), "tune")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tune").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s, err := run(context.Background(), config{tune: bin, out: filepath.Join(t.TempDir(), "traffic"), requests: 400, clients: 4, seed: 3}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.Requests != 400 || s.Clicks == 0 || !strings.Contains(s.Harvested, "400 searches") || !strings.Contains(s.Harvested, "implicit labels") {
		t.Fatalf("summary %+v", s)
	}
	// --judge pooled the logged answers; the file judge labelled them; the
	// same log harvested again appends no implicit label twice.
	if !strings.Contains(s.Harvested, "pooled the logged answers of the") || !strings.Contains(s.Judged, "appended ") || strings.Contains(s.Judged, "appended 0 labels") {
		t.Errorf("pool and judging:\n%s\n%s", s.Harvested, s.Judged)
	}
	if !strings.Contains(s.Reharvested, "added 0 queries") || !strings.Contains(s.Reharvested, ": 0 implicit labels") || strings.Contains(s.Reharvested, "; 0 unchanged") {
		t.Errorf("re-harvest:\n%s", s.Reharvested)
	}
	// The click model follows the gold grades: far better than chance.
	if s.Agreement.N < 20 || !(s.Agreement.KappaQuadratic > 0.4) {
		t.Errorf("implicit vs gold: %d pairs, quadratic kappa %v", s.Agreement.N, s.Agreement.KappaQuadratic)
	}
	var sh struct {
		Counts  map[string]int `json:"counts"`
		Queries []any          `json:"queries"`
		Metric  *struct {
			N    int `json:"n"`
			SPRT struct {
				Decision string `json:"decision"`
				N        int    `json:"n"`
			} `json:"sprt"`
		} `json:"metric"`
	}
	if err := json.Unmarshal(s.Shadow, &sh); err != nil {
		t.Fatal(err)
	}
	if sum := sh.Counts["identical"] + sh.Counts["minor"] + sh.Counts["major"]; sum != len(sh.Queries) || sum == 0 {
		t.Errorf("diff classes %v over %d queries", sh.Counts, len(sh.Queries))
	}
	if sh.Metric == nil || sh.Metric.N != len(sh.Queries) || sh.Metric.SPRT.Decision == "" || sh.Metric.SPRT.N < 1 || sh.Metric.SPRT.N > sh.Metric.N {
		t.Errorf("metric %+v", sh.Metric)
	}
	t.Logf("%s", s.markdown())
}
