package metrics_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

func TestAggregate(t *testing.T) {
	per := []metrics.QueryScore{
		{ID: "q3", Category: "howto", Difficulty: "hard", Scores: map[string]float64{"P@5": 0.2, "AP": 0.1}},
		{ID: "q1", Category: "facts", Difficulty: "easy", Scores: map[string]float64{"P@5": 1, "AP": 0.9}},
		{ID: "q2", Category: "howto", Difficulty: "easy", Scores: map[string]float64{"P@5": 0.6}},
		{ID: "q4", Scores: map[string]float64{"P@5": 0.2, "AP": 0.5}},
	}
	got := metrics.Aggregate(per)
	want := metrics.Summary{
		// P@5: (1 + 0.6 + 0.2 + 0.2)/4 = 0.5; AP (3 queries have it): (0.9 + 0.1 + 0.5)/3 = 0.5
		Overall: metrics.Group{Name: "all", Queries: 4, Means: map[string]float64{"P@5": 0.5, "AP": 0.5}},
		Categories: []metrics.Group{
			{Name: "facts", Queries: 1, Means: map[string]float64{"P@5": 1, "AP": 0.9}},
			// P@5: (0.6 + 0.2)/2; AP only q3
			{Name: "howto", Queries: 2, Means: map[string]float64{"P@5": 0.4, "AP": 0.1}},
		},
		Difficulties: []metrics.Group{
			{Name: "easy", Queries: 2, Means: map[string]float64{"P@5": 0.8, "AP": 0.9}},
			{Name: "hard", Queries: 1, Means: map[string]float64{"P@5": 0.2, "AP": 0.1}},
		},
	}
	if !summariesClose(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// The input order does not change a single bit of the result.
	rev := []metrics.QueryScore{per[3], per[2], per[1], per[0]}
	if again := metrics.Aggregate(rev); !reflect.DeepEqual(again, got) {
		t.Errorf("reordered input changed the summary:\n%+v\n%+v", again, got)
	}
	if empty := metrics.Aggregate(nil); empty.Overall.Queries != 0 || len(empty.Categories) != 0 {
		t.Errorf("empty: %+v", empty)
	}
}

func summariesClose(a, b metrics.Summary) bool {
	groupsClose := func(x, y []metrics.Group) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !groupClose(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return groupClose(a.Overall, b.Overall) && groupsClose(a.Categories, b.Categories) &&
		groupsClose(a.Difficulties, b.Difficulties)
}

func groupClose(a, b metrics.Group) bool {
	if a.Name != b.Name || a.Queries != b.Queries || len(a.Means) != len(b.Means) {
		return false
	}
	for k, v := range a.Means {
		w, ok := b.Means[k]
		if !ok || math.Abs(v-w) > eps {
			return false
		}
	}
	return true
}
