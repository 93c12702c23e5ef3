package runs

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// LabelDepth is how many of a query's first results TopLabels counts: the
// length of the recorded label sequence.
const LabelDepth = 10

// TopLabels is what a trial's queries found in their first Depth results:
// how many queries found nothing relevant (no result of grade 1 or above)
// and how many results had each grade or none. It counts the judged
// queries that returned results (a failed query is left out).
type TopLabels struct {
	Depth int `json:"depth"`
	// Queries is the number of queries counted.
	Queries int `json:"queries"`
	// NoRelevant is the number of queries with no relevant result in
	// their first Depth results.
	NoRelevant int `json:"queries_no_relevant"`
	// Grades counts the judged results by grade ("0", "1", ...).
	Grades map[string]int `json:"grades"`
	// Unjudged counts the results without a judgment.
	Unjudged int `json:"unjudged"`
}

// NewTopLabels returns empty counts over the first LabelDepth results.
func NewTopLabels() *TopLabels { return &TopLabels{Depth: LabelDepth, Grades: map[string]int{}} }

// Add counts one query whose first results have the given grades in rank
// order (grade < 0: unjudged); only the first t.Depth are read.
func (t *TopLabels) Add(grades []int) {
	t.Queries++
	relevant := false
	for i, g := range grades {
		if i == t.Depth {
			break
		}
		if g < 0 {
			t.Unjudged++
			continue
		}
		t.Grades[strconv.Itoa(g)]++
		relevant = relevant || g >= 1
	}
	if !relevant {
		t.NoRelevant++
	}
}

// AddResult counts r's recorded top (see Add).
func (t *TopLabels) AddResult(r QueryResult) {
	grades := make([]int, 0, min(len(r.Top), t.Depth))
	for i := 0; i < len(r.Top) && i < t.Depth; i++ {
		grades = append(grades, r.Top[i].Grade)
	}
	t.Add(grades)
}

// CountTopLabels counts the results of judged queries that did not fail
// (see TopLabels); nil when there is none.
func CountTopLabels(results []QueryResult) *TopLabels {
	t := NewTopLabels()
	for _, r := range results {
		if !r.Unjudged && r.Error == "" {
			t.AddResult(r)
		}
	}
	if t.Queries == 0 {
		return nil
	}
	return t
}

func (t *TopLabels) clone() *TopLabels {
	if t == nil {
		return nil
	}
	c := *t
	c.Grades = maps.Clone(t.Grades)
	return &c
}

// Line is t in one line of text: "first 10 results: 6 of 60 queries with
// no relevant result; labels 3×99 2×37 1×32 0×12 ?×626" (see Counts).
func (t *TopLabels) Line() string {
	return fmt.Sprintf("first %d results: %d of %d queries with no relevant result; labels %s", t.Depth, t.NoRelevant, t.Queries, t.Counts())
}

// Counts is the label counts as "3×99 2×37 1×32 0×12 ?×626": each grade
// from the highest down, then the unjudged results ("?").
func (t *TopLabels) Counts() string {
	grades := slices.Collect(maps.Keys(t.Grades))
	slices.SortFunc(grades, func(a, b string) int { return cmp.Compare(atoi(b), atoi(a)) })
	var b strings.Builder
	for _, g := range grades {
		fmt.Fprintf(&b, "%s×%d ", g, t.Grades[g])
	}
	fmt.Fprintf(&b, "?×%d", t.Unjudged)
	return b.String()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
