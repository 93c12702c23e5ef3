package dataset

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
)

// LintOptions are the golden-set lints' thresholds (Lint); 0 turns one
// off.
type LintOptions struct {
	// MinJudgments is the fewest judgments a query should have.
	MinJudgments int
	// MinRelevant is the fewest judgments at or above the scale's
	// relevant grade a query should have.
	MinRelevant int
	// MinCategory is the fewest queries a category should have (fewer
	// get no per-category interval).
	MinCategory int
	// MaxImbalance is the most the largest category may outnumber the
	// smallest, as a ratio of their query counts.
	MaxImbalance float64
}

// Defaults of LintOptions and the examples a lint names.
const (
	DefaultMinJudgments = 2
	DefaultMinRelevant  = 2
	DefaultMinCategory  = 5
	DefaultMaxImbalance = 5.0
	lintExamples        = 5
)

// DefaultLintOptions returns the lints' default thresholds.
func DefaultLintOptions() LintOptions {
	return LintOptions{MinJudgments: DefaultMinJudgments, MinRelevant: DefaultMinRelevant, MinCategory: DefaultMinCategory, MaxImbalance: DefaultMaxImbalance}
}

// Lint returns the golden set's warnings under o: queries with fewer
// judgments or relevant judgments than asked (those awaiting judgments
// aside), categories with too few queries or too unequal in size, and
// queries whose text repeats another's (compared ignoring case and
// spacing). Each lint gives at most one warning, with its count and the
// first few queries by position.
func Lint(gs *experiments.GoldenSet, o LintOptions) []error {
	var out []error
	var fewJ, fewR []string
	byText := map[string][]string{}
	var texts []string
	count := map[string]int{}
	for _, q := range gs.Queries {
		count[q.Category]++
		t := normText(q.Text)
		if _, ok := byText[t]; !ok {
			texts = append(texts, t)
		}
		byText[t] = append(byText[t], where(q))
		if q.Awaiting && len(q.Judgments) == 0 {
			continue
		}
		rel := 0
		for _, j := range q.Judgments {
			if j.Grade >= gs.Scale.Relevant {
				rel++
			}
		}
		if o.MinJudgments > 0 && len(q.Judgments) < o.MinJudgments {
			fewJ = append(fewJ, fmt.Sprintf("%s (%d)", where(q), len(q.Judgments)))
		}
		if o.MinRelevant > 0 && rel < o.MinRelevant {
			fewR = append(fewR, fmt.Sprintf("%s (%d)", where(q), rel))
		}
	}
	if len(fewJ) > 0 {
		out = append(out, fmt.Errorf("lint: %d of %d queries have fewer than %d judgments: %s", len(fewJ), len(gs.Queries), o.MinJudgments, examples(fewJ)))
	}
	if len(fewR) > 0 {
		out = append(out, fmt.Errorf("lint: %d of %d queries have fewer than %d relevant judgments (grade >= %d): %s", len(fewR), len(gs.Queries), o.MinRelevant, gs.Scale.Relevant, examples(fewR)))
	}
	out = append(out, lintCategories(count, o)...)
	var dups []string
	for _, t := range texts {
		if qs := byText[t]; len(qs) > 1 {
			dups = append(dups, strings.Join(qs, " = "))
		}
	}
	if len(dups) > 0 {
		out = append(out, fmt.Errorf("lint: %d query texts appear more than once: %s", len(dups), examples(dups)))
	}
	return out
}

// lintCategories warns about categories with fewer than o.MinCategory
// queries and about a largest category more than o.MaxImbalance times
// the smallest.
func lintCategories(count map[string]int, o LintOptions) []error {
	if len(count) < 2 {
		return nil
	}
	cats := make([]string, 0, len(count))
	for c := range count {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(a, b int) bool {
		if count[cats[a]] != count[cats[b]] {
			return count[cats[a]] < count[cats[b]]
		}
		return cats[a] < cats[b]
	})
	var out []error
	var small []string
	for _, c := range cats {
		if o.MinCategory > 0 && count[c] < o.MinCategory {
			small = append(small, fmt.Sprintf("%s (%d)", catName(c), count[c]))
		}
	}
	if len(small) > 0 {
		out = append(out, fmt.Errorf("lint: %d categories have fewer than %d queries (no per-category interval): %s", len(small), o.MinCategory, examples(small)))
	}
	lo, hi := cats[0], cats[len(cats)-1]
	if o.MaxImbalance > 0 && float64(count[hi]) > o.MaxImbalance*float64(count[lo]) {
		out = append(out, fmt.Errorf("lint: categories unbalanced: %s has %d queries, %s %d (more than %g times as many)", catName(hi), count[hi], catName(lo), count[lo], o.MaxImbalance))
	}
	return out
}

// LintAgainst compares cur with an earlier version of the set, old: query
// ids old has and cur lacks (removed: results recorded under them no
// longer compare), and ids both have for different texts (reused: a
// comparison across the versions would pair different queries).
func LintAgainst(old, cur *experiments.GoldenSet) []error {
	now := map[string]experiments.Query{}
	for _, q := range cur.Queries {
		now[q.ID] = q
	}
	var removed, reused []string
	for _, q := range old.Queries {
		c, ok := now[q.ID]
		switch {
		case !ok:
			removed = append(removed, fmt.Sprintf("%q (%s)", q.ID, q.Pos))
		case normText(c.Text) != normText(q.Text):
			reused = append(reused, fmt.Sprintf("%q: %q at %s, was %q", q.ID, c.Text, c.Pos, q.Text))
		}
	}
	var out []error
	if len(removed) > 0 {
		out = append(out, fmt.Errorf("lint: %d query ids of %s are gone: %s", len(removed), old.Source, examples(removed)))
	}
	if len(reused) > 0 {
		out = append(out, fmt.Errorf("lint: %d query ids of %s now name another text: %s", len(reused), old.Source, examples(reused)))
	}
	return out
}

// where names a query for a lint: its id and position.
func where(q experiments.Query) string {
	if q.Pos == "" {
		return fmt.Sprintf("%q", q.ID)
	}
	return fmt.Sprintf("%q at %s", q.ID, q.Pos)
}

func catName(c string) string {
	if c == "" {
		return "(none)"
	}
	return c
}

// examples joins the first lintExamples items, saying how many more.
func examples(items []string) string {
	if len(items) <= lintExamples {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:lintExamples], ", "), len(items)-lintExamples)
}

// normText is a query text compared ignoring case and spacing.
func normText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// LintGolden loads the golden set at path with lo and returns Lint's
// warnings under o and, with against set, LintAgainst's against the set
// at against (read with lo's format options).
func LintGolden(path string, lo experiments.LoadOptions, o LintOptions, against string) ([]error, error) {
	gs, err := experiments.LoadGoldenSet(path, lo)
	if err != nil {
		return nil, err
	}
	out := Lint(gs, o)
	if against != "" {
		lo.Judgments = ""
		old, err := experiments.LoadGoldenSet(against, lo)
		if err != nil {
			return out, fmt.Errorf("--against: %w", err)
		}
		out = append(out, LintAgainst(old, gs)...)
	}
	return out, nil
}
