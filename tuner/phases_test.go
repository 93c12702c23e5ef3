package tuner_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/pass"
)

// TestRunPhases: with Config.Phases, Run marks its steps and every backend
// call, and writes the phases after the time: line; their sum is the run's
// wall time as the time: line counts it (up to the manifest's last save).
func TestRunPhases(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	c.Started = time.Now()
	c.Phases = pass.NewPhases(c.Started)
	var log bytes.Buffer
	c.Log = &log
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	text := log.String()
	for _, phase := range []string{
		"tuner: create the run", "tuner: wait for the run's snapshot (written while the backend started)", "tuner: apply", "backend: restart",
		"backend: searches", "tuner: after the trials (held-out, latency)", "tuner: statistics", "tuner: write the leaderboard", "tuner: report",
	} {
		if !strings.Contains(text, "  "+phase+"\n") {
			t.Errorf("no phase %q in\n%s", phase, text)
		}
	}
	if i, j := strings.Index(text, "time: "), strings.Index(text, "phases: "); i < 0 || j < i {
		t.Errorf("phases not after the time: line:\n%s", text)
	}
	m := regexp.MustCompile(`phases: ([\d.]+)s in tuner phases, ([\d.]+)s in backend calls, ([\d.]+)s until the last mark`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no phase totals in\n%s", text)
	}
	tunerS, _ := strconv.ParseFloat(m[1], 64)
	backendS, _ := strconv.ParseFloat(m[2], 64)
	last, _ := strconv.ParseFloat(m[3], 64)
	if d := tunerS + backendS - last; d > 0.0015 || d < -0.0015 {
		t.Errorf("tuner %.3fs + backend %.3fs != %.3fs", tunerS, backendS, last)
	}
	if wall := out.Timings.WallSeconds; last < wall-0.0005 {
		t.Errorf("phases end at %.3fs, before the wall time %.3fs", last, wall)
	}
}
