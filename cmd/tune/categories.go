package main

import (
	"fmt"
	"sort"
	"strings"

	tunesettings "github.com/fusiontune/fusiontune/internal/settings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/tuner"
)

// checkCategories refuses, before a sweep starts, a gate or a guarded
// category (promotion.guarded) naming a category that no evaluated query
// has: such a gate could only fail, and such a guard would guard nothing, once
// the whole run is done. Each problem is placed where the setting came
// from.
func (s *settings) checkCategories(queries []tuner.Query) error {
	have := map[string]bool{}
	for _, q := range queries {
		if q.Category != "" {
			have[q.Category] = true
		}
	}
	known := make([]string, 0, len(have))
	for c := range have {
		known = append(known, c)
	}
	sort.Strings(known)
	list := "the queries have no categories"
	if len(known) > 0 {
		list = "categories: " + strings.Join(known, ", ")
	}
	hint := func(c string) string {
		if m := suggest.Closest(c, known); m != "" {
			return fmt.Sprintf("did you mean %q? %s", m, list)
		}
		return list
	}
	var problems experiments.Problems
	for i, g := range s.ParsedGates {
		if g.Category != "" && !have[g.Category] {
			problems = append(problems, s.Src.Problem(fmt.Sprintf("gates[%d]", i), "gate %q: no evaluated query has category %q (%s)", g.Text, g.Category, hint(g.Category)))
		}
	}
	for i, c := range s.Promotion.Guarded {
		if c != "" && !have[c] {
			problems = append(problems, s.Src.Problem(fmt.Sprintf("promotion.guarded[%d]", i), "no evaluated query has category %q (%s)", c, hint(c)))
		}
	}
	if len(problems) > 0 {
		tunesettings.SortByPosition(problems)
		return problems
	}
	return nil
}
