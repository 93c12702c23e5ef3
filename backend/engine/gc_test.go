package engine

import (
	"runtime/debug"
	"testing"
)

// TestBuildGC: without GOGC in the environment the collector's target is
// BuildGCPercent, FitGCPercent once a fit begins, until restore puts the
// previous one back (once: a second call changes nothing); with GOGC set
// the target is never touched.
func TestBuildGC(t *testing.T) {
	prev := debug.SetGCPercent(80)
	defer debug.SetGCPercent(prev)
	target := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name              string
		gogc              string
		during, fit, then int
	}{
		{"GOGC unset", "", BuildGCPercent, FitGCPercent, 80},
		{"GOGC set", "80", 80, 80, 80},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(80)
			restore := BuildGC(env(tt.gogc))
			if got := target(); got != tt.during {
				t.Errorf("while building: target %d, want %d", got, tt.during)
			}
			if got, want := buildGC.Load(), tt.gogc == ""; got != want {
				t.Errorf("while building: in force %v, want %v", got, want)
			}
			beforeFit(false)
			if got := target(); got != tt.fit {
				t.Errorf("while fitting: target %d, want %d", got, tt.fit)
			}
			restore()
			if buildGC.Load() {
				t.Error("after restore: still in force")
			}
			if got := target(); got != tt.then {
				t.Errorf("after restore: target %d, want %d", got, tt.then)
			}
			debug.SetGCPercent(55)
			restore()
			if got := target(); got != 55 {
				t.Errorf("a second restore changed the target to %d", got)
			}
		})
	}
}
