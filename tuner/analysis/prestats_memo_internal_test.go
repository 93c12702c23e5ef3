package analysis

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

// TestStatsMemoComputesOnce: askers of the same key, side by side, share
// one computation; other keys compute their own; a failure is not shared.
func TestStatsMemoComputesOnce(t *testing.T) {
	var m statsMemo
	var calls atomic.Int64
	key := memoKey("compare", 7, []float64{1, 2, 3}, []float64{3, 2, 1})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			v, err := m.do(key, func() (any, error) { calls.Add(1); return 42, nil })
			if err != nil || v.(int) != 42 {
				t.Errorf("do = %v, %v; want 42, nil", v, err)
			}
		})
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d computations for one key, want 1", n)
	}
	other := memoKey("compare", 7, []float64{1, 2, 3}, []float64{3, 2, 2})
	if _, err := m.do(other, func() (any, error) { calls.Add(1); return 1, nil }); err != nil || calls.Load() != 2 {
		t.Errorf("another key: %v, %d computations; want its own", err, calls.Load())
	}
	boom := errors.New("cancelled")
	failing := memoKey("compare", 8, []float64{1})
	for i := range 2 {
		if _, err := m.do(failing, func() (any, error) { calls.Add(1); return nil, boom }); !errors.Is(err, boom) {
			t.Errorf("failing key, call %d: %v, want the failure", i, err)
		}
	}
	if _, err := m.do(failing, func() (any, error) { return 5, nil }); err != nil {
		t.Errorf("after failures, a computation that succeeds: %v", err)
	}
}

// TestMemoKeyTellsInputsApart: a key changes with every part of the
// inputs, bit for bit (-0 is not 0, NaN payloads differ), and with where
// one slice ends and the next begins.
func TestMemoKeyTellsInputsApart(t *testing.T) {
	base := memoKey("compare", 1, []float64{0.5, 0}, []float64{0.25})
	for name, k := range map[string][32]byte{
		"kind":     memoKey("interval", 1, []float64{0.5, 0}, []float64{0.25}),
		"seed":     memoKey("compare", 2, []float64{0.5, 0}, []float64{0.25}),
		"value":    memoKey("compare", 1, []float64{0.5, 1e-300}, []float64{0.25}),
		"-0":       memoKey("compare", 1, []float64{0.5, math.Copysign(0, -1)}, []float64{0.25}),
		"boundary": memoKey("compare", 1, []float64{0.5}, []float64{0, 0.25}),
	} {
		if k == base {
			t.Errorf("%s: same key as the base inputs", name)
		}
	}
	if memoKey("compare", 1, []float64{0.5, 0}, []float64{0.25}) != base {
		t.Error("the same inputs give another key")
	}
	a := categoriesKey(map[string][]float64{"x": {1}, "y": {2}})
	if b := categoriesKey(map[string][]float64{"y": {2}, "x": {1}}); a != b {
		t.Error("categoriesKey depends on map order")
	}
	if c := categoriesKey(map[string][]float64{"x": {2}, "y": {1}}); a == c {
		t.Error("categoriesKey: values swapped between categories give the same key")
	}
}
