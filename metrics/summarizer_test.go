package metrics_test

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// added is one Summarizer.Add call.
type added struct {
	q        metrics.QueryLabels
	vals     []float64
	has      []bool
	primary  float64
	routedOK bool
}

func ptr(v float64) *float64 { return &v }

// TestSummarizer checks summaries against hand-computed means. The values
// are exact in binary, so the comparison is bit for bit.
func TestSummarizer(t *testing.T) {
	judged := func(cat, diff string) metrics.QueryLabels {
		return metrics.QueryLabels{Category: cat, Difficulty: diff, Judged: true}
	}
	tests := []struct {
		name  string
		names []string
		adds  []added
		want  metrics.Summary
	}{
		{
			name:  "nothing added",
			names: []string{"P@5"},
			want:  metrics.Summary{Scorecard: map[string]float64{}},
		},
		{
			name:  "groups",
			names: []string{"AP", "P@5"},
			adds: []added{
				{q: judged("facts", "easy"), vals: []float64{0.75, 1}, primary: 1},
				{q: judged("howto", "easy"), vals: []float64{0.5, 0.5}, primary: 0.5},
				{q: judged("howto", "hard"), vals: []float64{0.25, 0.25}, primary: 0.25},
				{q: judged("", ""), vals: []float64{0.5, 0.25}, primary: 0.25},
			},
			want: metrics.Summary{
				// AP: (0.75 + 0.5 + 0.25 + 0.5)/4; P@5: (1 + 0.5 + 0.25 + 0.25)/4;
				// primary: (1 + 0.5 + 0.25 + 0.25)/4
				Primary:   0.5,
				Scorecard: map[string]float64{"AP": 0.5, "P@5": 0.5},
				Categories: map[string]map[string]float64{
					"facts": {"AP": 0.75, "P@5": 1, "primary": 1},
					"howto": {"AP": 0.375, "P@5": 0.375, "primary": 0.375},
				},
				Difficulties: map[string]map[string]float64{
					"easy": {"AP": 0.625, "P@5": 0.75, "primary": 0.75},
					"hard": {"AP": 0.25, "P@5": 0.25, "primary": 0.25},
				},
				Scored: 4,
			},
		},
		{
			// A value not recorded counts as 0 in its mean; a metric no
			// query of a group recorded is left out of that group.
			name:  "missing values",
			names: []string{"AP", "P@5"},
			adds: []added{
				{q: judged("a", ""), vals: []float64{0.5, 1}, has: []bool{true, true}, primary: 1},
				{q: judged("b", ""), vals: []float64{0.75, 0.5}, has: []bool{false, true}, primary: 0.5},
			},
			want: metrics.Summary{
				Primary:   0.75,
				Scorecard: map[string]float64{"AP": 0.25, "P@5": 0.75},
				Categories: map[string]map[string]float64{
					"a": {"AP": 0.5, "P@5": 1, "primary": 1},
					"b": {"P@5": 0.5, "primary": 0.5},
				},
				Scored: 2,
			},
		},
		{
			// A failed query records no values: it counts as 0 in every
			// mean.
			name:  "failed query",
			names: []string{"P@5"},
			adds: []added{
				{q: judged("", ""), vals: []float64{1}, primary: 0.5},
				{q: judged("", "")},
			},
			want: metrics.Summary{Primary: 0.25, Scorecard: map[string]float64{"P@5": 0.5}, Scored: 2},
		},
		{
			// Unjudged queries count for the routing accuracy only;
			// queries without an expected routing are left out of it.
			name:  "routing",
			names: []string{"P@5"},
			adds: []added{
				{q: metrics.QueryLabels{Category: "c", Routed: true}, vals: []float64{1}, primary: 1, routedOK: true},
				{q: metrics.QueryLabels{Judged: true, Routed: true}, vals: []float64{0.5}, primary: 0.5},
				{q: metrics.QueryLabels{Judged: true, Routed: true}, vals: []float64{0.5}, primary: 0.5, routedOK: true},
				{q: metrics.QueryLabels{Judged: true}, vals: []float64{0.5}, primary: 0.5, routedOK: true},
			},
			want: metrics.Summary{Primary: 0.5, Scorecard: map[string]float64{"P@5": 0.5},
				Routing: ptr(2.0 / 3), Scored: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm := metrics.NewSummarizer(tt.names)
			for _, a := range tt.adds {
				sm.Add(a.q, a.vals, a.has, a.primary, a.routedOK)
			}
			if got := sm.Summary(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestSummarizerSumsInAddOrder: the sums run in the order of the Add
// calls, so a summary has the bits of that left-to-right summation (which
// here differ from those of the reverse order).
func TestSummarizerSumsInAddOrder(t *testing.T) {
	vals := []float64{0.1, 0.2, 0.3}
	sm := metrics.NewSummarizer([]string{"m"})
	sum, rev := 0.0, 0.0
	for i, v := range vals {
		sm.Add(metrics.QueryLabels{Judged: true}, []float64{v}, nil, v, false)
		sum += v
		rev += vals[len(vals)-1-i]
	}
	if sum == rev {
		t.Fatalf("the test needs values whose sum depends on the order")
	}
	want := sum / float64(len(vals))
	s := sm.Summary()
	if s.Primary != want || s.Scorecard["m"] != want {
		t.Errorf("primary %v, m %v; want %v (the left-to-right sum / n)", s.Primary, s.Scorecard["m"], want)
	}
}
