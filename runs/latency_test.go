package runs_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

func TestPercentile(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		name   string
		values []float64
		p      float64
		want   float64
	}{
		{"empty", nil, 95, 0},
		{"one", []float64{7}, 50, 7},
		{"median of ten", ten, 50, 5},
		{"p95 of ten", ten, 95, 10},
		{"p90 of ten", ten, 90, 9},
		{"p99 of ten", ten, 99, 10},
		{"p1 of ten", ten, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := runs.Percentile(tt.values, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.values, tt.p, got, tt.want)
			}
		})
	}
}

func TestStatsOfAndMedian(t *testing.T) {
	s := runs.StatsOf([]float64{40, 10, 30, 20}, []map[string]float64{{"lexical": 1}, {"lexical": 3}, nil, {"lexical": 2}}, 2*time.Second)
	want := runs.LatencyStats{Queries: 4, P50MS: 20, P95MS: 40, P99MS: 40, QPS: 2,
		Stages: map[string]runs.StageLatency{"lexical": {P50MS: 2, P95MS: 3}}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("StatsOf = %+v, want %+v", s, want)
	}
	reps := []runs.LatencyStats{
		{Queries: 4, P50MS: 1, P95MS: 10, P99MS: 12, QPS: 100},
		{Queries: 4, P50MS: 3, P95MS: 30, P99MS: 32, QPS: 50},
		{Queries: 4, P50MS: 2, P95MS: 20, P99MS: 22, QPS: 80},
	}
	m, sp := runs.MedianOf(reps)
	if m.P50MS != 2 || m.P95MS != 20 || m.P99MS != 22 || m.QPS != 80 || m.Queries != 4 {
		t.Errorf("median %+v, want p50 2, p95 20, p99 22, qps 80", m)
	}
	if sp != (runs.LatencySpread{P95MinMS: 10, P95MaxMS: 30, QPSMin: 50, QPSMax: 100}) {
		t.Errorf("spread %+v", sp)
	}
}

func TestParetoFront(t *testing.T) {
	tl := func(i int, name string, primary, p95 float64, repeat bool) runs.TrialLatency {
		s := &runs.LatencyStats{P95MS: p95}
		if repeat {
			return runs.TrialLatency{Index: i, Name: name, Primary: primary, Median: s, Sweep: &runs.LatencyStats{P95MS: 1e9}}
		}
		return runs.TrialLatency{Index: i, Name: name, Primary: primary, Sweep: s}
	}
	trials := []runs.TrialLatency{
		tl(0, "deep", 0.9, 100, false),
		tl(1, "mid", 0.8, 20, false),
		tl(2, "dominated", 0.7, 30, false),
		tl(3, "fast", 0.5, 5, true), // the repeat's median counts, not the sweep's
		tl(4, "tie-fast", 0.5, 5, false),
		{Index: 5, Name: "unmeasured", Primary: 1},
	}
	got := runs.ParetoFront(trials)
	want := []runs.ParetoPoint{
		{Index: 3, Name: "fast", Primary: 0.5, P95MS: 5},
		{Index: 4, Name: "tie-fast", Primary: 0.5, P95MS: 5},
		{Index: 1, Name: "mid", Primary: 0.8, P95MS: 20},
		{Index: 0, Name: "deep", Primary: 0.9, P95MS: 100},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParetoFront =\n%+v\nwant\n%+v", got, want)
	}
}
