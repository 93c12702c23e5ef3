package pass_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"
)

// TestPhases: marks add up per phase in order of first appearance, a mark
// before the previous one counts nothing, the totals split tuner and
// backend phases, and a nil *Phases marks and writes nothing.
func TestPhases(t *testing.T) {
	start := time.Date(2026, 11, 24, 16, 0, 0, 0, time.UTC)
	p := pass.NewPhases(start)
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
	var none *pass.Phases
	none.Mark("x")
	none.MarkAt("x", at(1))
	var nb bytes.Buffer
	none.Write(&nb)
	if nb.Len() != 0 {
		t.Errorf("nil Phases wrote %q", nb.String())
	}
}
