package tuner

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestDescribed: the prefetched configs are the factory's, each described
// once; trials that were not prefetched are described when asked; params
// alike but for a value's type (60 and "60") are kept apart; a cancelled
// prefetch stops.
func TestDescribed(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	describe := func(p map[string]any) string {
		s := fmt.Sprintf("%#v", p["fusion.k"])
		mu.Lock()
		calls[s]++
		mu.Unlock()
		return "config " + s
	}
	trials := []experiments.TrialSpec{
		{Name: "a", Params: experiments.Params{"fusion.k": 60.0}},
		{Name: "b", Params: experiments.Params{"fusion.k": "60"}},
	}
	d := newDescribed(describe)
	d.prefetch(context.Background(), trials)()
	for _, tr := range trials {
		if got, want := d.get(tr.Params), describe(tr.Params); got != want {
			t.Errorf("%s: %q, want %q", tr.Name, got, want)
		}
	}
	if got := d.get(experiments.Params{"fusion.k": 40.0}); got != "config 40" {
		t.Errorf("not prefetched: %q", got)
	}
	// Each prefetched trial was described once by the prefetch and once
	// by the check above; the other once, when asked, and once above.
	for s, n := range calls {
		if n != 2 && s != "40" || s == "40" && n != 1 {
			t.Errorf("%s described %d times", s, n)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := newDescribed(func(map[string]any) string { t.Error("described after cancel"); return "" })
	stopped.prefetch(ctx, trials)()
}
