package stats_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/metrics/stats"
)

// TestCompareContextCancelled: a comparison far too large to finish (a
// billion resamples and flips over 1,000 pairs) stops within a second of
// its context being cancelled, with the context's error.
func TestCompareContextCancelled(t *testing.T) {
	x, y := make([]float64, 1000), make([]float64, 1000)
	for i := range x {
		x[i], y[i] = float64(i%7)/7, float64(i%5)/5
	}
	cases := []struct {
		name string
		th   stats.Thresholds
	}{
		{"bootstrap", stats.Thresholds{Resamples: 1 << 22}},
		{"randomization", stats.Thresholds{Permutations: 1 << 30}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := stats.CompareContext(ctx, x, y, 1, tc.th)
				done <- err
			}()
			time.Sleep(200 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
			case <-time.After(time.Second):
				t.Fatal("still computing a second after cancellation")
			}
		})
	}
}

// TestMeanIntervalContextCancelled: a bootstrap interval stops with the
// context's error.
func TestMeanIntervalContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	if _, err := stats.MeanIntervalContext(ctx, v, "category x", 1, stats.Thresholds{Resamples: 1 << 22}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	iv, err := stats.MeanIntervalContext(context.Background(), v, "category x", 1, stats.DefaultThresholds())
	if err != nil || iv != stats.MeanInterval(v, "category x", 1, stats.DefaultThresholds()) {
		t.Fatalf("MeanIntervalContext = %+v, %v; want MeanInterval's result", iv, err)
	}
}
