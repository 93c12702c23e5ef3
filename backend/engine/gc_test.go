package engine

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: without GOGC in the environment the collector's target
// becomes ServeGCPercent; with it, the target stays what it was.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(80)
	defer debug.SetGCPercent(prev)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	if got := TuneGC(env("80")); got != 80 || debug.SetGCPercent(80) != 80 {
		t.Errorf("GOGC set: target %d, want 80 kept", got)
	}
	if got := TuneGC(env("")); got != ServeGCPercent || debug.SetGCPercent(80) != ServeGCPercent {
		t.Errorf("GOGC unset: target %d, want %d", got, ServeGCPercent)
	}
}
