package metrics

import (
	"slices"
	"strings"
)

// QueryScore is one query's metric values with the labels aggregation
// groups by.
type QueryScore struct {
	ID         string
	Category   string // empty: not in any category group
	Difficulty string // empty: not in any difficulty group
	Scores     map[string]float64
}

// Group is the mean of each metric over a set of queries.
type Group struct {
	Name    string
	Queries int
	// Means maps metric name -> mean over the queries that have a value for
	// it.
	Means map[string]float64
}

// Summary aggregates per-query scores overall, per category and per
// difficulty. Groups are sorted by name.
type Summary struct {
	Overall      Group
	Categories   []Group
	Difficulties []Group
}

// Aggregate averages per-query scores. The result does not depend on the
// order of per: sums run in query id order. A metric missing from a query's
// Scores is left out of that query's means (not counted as 0).
func Aggregate(per []QueryScore) Summary {
	sorted := slices.Clone(per)
	slices.SortStableFunc(sorted, func(a, b QueryScore) int { return strings.Compare(a.ID, b.ID) })
	s := Summary{Overall: mean("all", sorted)}
	s.Categories = groupBy(sorted, func(q QueryScore) string { return q.Category })
	s.Difficulties = groupBy(sorted, func(q QueryScore) string { return q.Difficulty })
	return s
}

func groupBy(qs []QueryScore, key func(QueryScore) string) []Group {
	byKey := map[string][]QueryScore{}
	for _, q := range qs {
		if k := key(q); k != "" {
			byKey[k] = append(byKey[k], q)
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Group, 0, len(keys))
	for _, k := range keys {
		out = append(out, mean(k, byKey[k]))
	}
	return out
}

func mean(name string, qs []QueryScore) Group {
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, q := range qs {
		for m, v := range q.Scores {
			sums[m] += v
			counts[m]++
		}
	}
	g := Group{Name: name, Queries: len(qs), Means: make(map[string]float64, len(sums))}
	for m, s := range sums {
		g.Means[m] = s / float64(counts[m])
	}
	return g
}
