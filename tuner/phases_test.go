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
)

// TestPhases: marks add up per phase in order of first appearance, a mark
// before the previous one counts nothing, the totals split tuner and
// backend phases, and a nil *Phases marks and writes nothing.
func TestPhases(t *testing.T) {
	start := time.Date(2026, 11, 24, 16, 0, 0, 0, time.UTC)
	p := tuner.NewPhases(start)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	p.MarkAt("tuner: settings", at(10))
	p.MarkAt("tuner: before apply", at(12))
	p.MarkAt("backend: restart", at(112))
	p.MarkAt("tuner: before apply", at(115))
	p.MarkAt("backend: restart", at(100)) // out of order: nothing
	p.MarkAt("other", at(120))
	var b bytes.Buffer
	p.Write(&b)
	want := []string{
		`phases:    0.010s    1    0.010s  tuner: settings`,
		`phases:    0.012s    2    0.005s  tuner: before apply`,
		`phases:    0.112s    2    0.100s  backend: restart`,
		`phases:    0.120s    1    0.005s  other`,
		`phases: 0.015s in tuner phases, 0.100s in backend calls, 0.120s until the last mark`,
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != len(want)+1 || !strings.HasPrefix(lines[0], "phases: first end") {
		t.Fatalf("got\n%s", b.String())
	}
	for i, w := range want {
		if lines[i+1] != w {
			t.Errorf("line %d: %q, want %q", i+1, lines[i+1], w)
		}
	}
	var none *tuner.Phases
	none.Mark("x")
	none.MarkAt("x", at(1))
	var nb bytes.Buffer
	none.Write(&nb)
	if nb.Len() != 0 {
		t.Errorf("nil Phases wrote %q", nb.String())
	}
}

// TestRunPhases: with Config.Phases, Run marks its steps and every backend
// call, and writes the phases after the time: line; their sum is the run's
// wall time as the time: line counts it (up to the manifest's last save).
func TestRunPhases(t *testing.T) {
	c := runConfig(t, landscapeTrials(), nil)
	c.Started = time.Now()
	c.Phases = tuner.NewPhases(c.Started)
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
