package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sort"

	"github.com/fusiontune/fusiontune/runs"
)

type categoryView struct {
	Chart     template.HTML
	Best      string
	Baseline  string // shown as its own series when it is not the best
	Intervals bool
	Rows      []categoryRow
}

type categoryRow struct {
	Name     string
	N        string
	Best     string
	Baseline string
	Warning  string
}

// newCategoryView charts the best trial's (and the baseline's) primary
// score per category, with the recorded bootstrap intervals when present.
func newCategoryView(best runs.Entry, baseline *runs.Entry, queries []runs.QueryResult, g golden) (categoryView, error) {
	counts := map[string]int{}
	for _, q := range queries {
		if q.Error == "" && g.scored(q, best.Categories) {
			counts[q.Category]++
		}
	}
	entries := []runs.Entry{best}
	if baseline != nil && baseline.Name != best.Name {
		entries = append(entries, *baseline)
	}
	cats := categoriesOf(entries)
	if len(cats) == 0 {
		return categoryView{}, nil
	}

	v := categoryView{Best: best.Name}
	var series []barSeries
	for i, e := range entries {
		s := barSeries{color: colorBest, bars: map[string]bar{}}
		if i > 0 {
			s.color = colorBaseline
			v.Baseline = e.Name
		}
		for _, c := range cats {
			if iv, ok := e.CategoryIntervals[c]; ok {
				s.bars[c] = bar{mean: iv.Mean, low: iv.Low, high: iv.High, interval: iv.Warning == "" && iv.High > iv.Low}
				v.Intervals = true
			} else if m, ok := e.Categories[c]["primary"]; ok {
				s.bars[c] = bar{mean: m, low: m, high: m}
			}
		}
		series = append(series, s)
	}
	chart, err := categoryChart(cats, series)
	if err != nil {
		return v, err
	}
	v.Chart = chart
	v.Rows = categoryRows(cats, counts, best, baseline != nil, series)
	return v, nil
}

// categoriesOf is every category the entries have a score or an interval
// for, sorted.
func categoriesOf(entries []runs.Entry) []string {
	set := map[string]bool{}
	for _, e := range entries {
		for c := range e.Categories {
			set[c] = true
		}
		for c := range e.CategoryIntervals {
			set[c] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// categoryRows are the category table's rows under the chart: per category
// its query count (the best trial's interval's, else counts', else —) and
// warning, and the best trial's and the baseline's bars as text. series
// holds the best trial's bars, then the baseline's when it is another
// trial; when it is the best trial itself (hasBaseline, one series) its
// cells repeat the best's.
func categoryRows(cats []string, counts map[string]int, best runs.Entry, hasBaseline bool, series []barSeries) []categoryRow {
	var rows []categoryRow
	for _, c := range cats {
		r := categoryRow{Name: c, N: "—", Best: "—", Baseline: "—"}
		if n, ok := counts[c]; ok {
			r.N = fmt.Sprint(n)
		}
		if iv, ok := best.CategoryIntervals[c]; ok {
			r.N = fmt.Sprint(iv.N)
			r.Warning = iv.Warning
		}
		r.Best = cell(series[0].bars, c)
		if len(series) > 1 {
			r.Baseline = cell(series[1].bars, c)
		} else if hasBaseline {
			r.Baseline = r.Best
		}
		rows = append(rows, r)
	}
	return rows
}

func cell(bars map[string]bar, c string) string {
	b, ok := bars[c]
	if !ok {
		return "—"
	}
	if b.interval {
		return fmt.Sprintf("%s [%s, %s]", f4(b.mean), f4(b.low), f4(b.high))
	}
	return f4(b.mean)
}

type parityView struct {
	Replay bool // any trial not evaluated live
	Counts []modeCount
	Rows   []parityRow
}

type modeCount struct {
	Mode  string
	Count int
}

type parityRow struct {
	Name, Mode, Primary, Note string
}

// newParityView summarises how each trial was evaluated. Verified trials
// were replayed and re-run live; the run fails when the two disagree.
func newParityView(trials []runs.TrialRecord) parityView {
	var v parityView
	counts := map[string]int{}
	for _, t := range trials {
		mode := t.Mode
		if mode == "" {
			mode = "live"
		}
		counts[mode]++
		if mode != "live" {
			v.Replay = true
		}
	}
	modes := make([]string, 0, len(counts))
	for m := range counts {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	for _, m := range modes {
		v.Counts = append(v.Counts, modeCount{m, counts[m]})
	}
	if !v.Replay {
		return v
	}
	for _, t := range trials {
		r := parityRow{Name: t.Name, Mode: t.Mode, Primary: "—"}
		if t.Status == runs.StatusOK {
			r.Primary = f4(t.Primary)
		}
		switch t.Mode {
		case "verified":
			r.Note = "replayed, then re-run live: the scores agreed (a difference above 1e-9 fails the run)"
		case "replay":
			r.Note = "fused offline from the recorded candidate lists; not re-run live"
		case "live", "":
			r.Note = "evaluated live against the restarted backend"
		}
		v.Rows = append(v.Rows, r)
	}
	return v
}

type coverageView struct {
	Recorded  bool
	Threshold string
	// Reachable is the ideal ranking's Judged@10 when the leaderboard
	// records a ceiling ("": unknown, and the threshold is absolute).
	Reachable string
	Share     string // the threshold's share of Reachable, "50%"
	Trials    []coverageRow
	Category  []coverageRow // the best trial's per-category coverage
	Blind     []string      // best trial's queries with nothing judged in the top 10
	Warnings  []string
	// JudgedOnly is true when the trials record judged-only NDCG@10.
	JudgedOnly bool
	// Labels is true when the trials record their top-10 label counts.
	Labels bool
}

type coverageRow struct {
	Name, Value string
	Low         bool
	// NDCG and JudgedOnly are the trial's NDCG@10 and its judged-only
	// (condensed-list, trec_eval -J) NDCG@10, when recorded.
	NDCG, JudgedOnly string
	// NoRelevant is "6 of 60", the queries with no relevant result in the
	// top 10; Labels the count of each grade there and of unjudged
	// results, "3×99 2×37 1×32 0×12 ?×626".
	NoRelevant, Labels string
}

// newCoverageView reports Judged@10: the share of the top 10 results that
// carry a judgment. Unjudged results count as irrelevant, so low coverage
// makes every score a lower bound and penalises trials that surface
// documents nobody judged.
//
// The warning threshold is relative to what the golden set can reach: warn
// times the ideal ranking's Judged@10 (the ceiling's), per category the
// category's; a set with three judgments a query cannot pass 0.3.
func newCoverageView(lb runs.Leaderboard, best runs.Entry, hasBest bool, queries []runs.QueryResult, g golden, warn float64) coverageView {
	warn, catWarn, reachable, shareText := coverageThreshold(lb.Ceiling, warn)
	v := coverageView{Threshold: f4(warn), Reachable: reachable, Share: shareText}
	low, lowest := 0, 0.0
	for _, e := range lb.Trials {
		x, ok := e.Scorecard[CoverageMetric]
		if !ok || e.Status != runs.StatusOK {
			continue
		}
		v.Recorded = true
		row := coverageRow{Name: e.Name, Value: f4(x), Low: x < warn}
		if jo, ok := e.JudgedOnly[runs.WarnMetric]; ok {
			v.JudgedOnly = true
			row.NDCG, row.JudgedOnly = f4(e.Scorecard[runs.WarnMetric]), f4(jo)
		}
		if t := e.TopLabels; t != nil {
			v.Labels = true
			row.NoRelevant = fmt.Sprintf("%d of %d", t.NoRelevant, t.Queries)
			row.Labels = t.Counts()
		}
		v.Trials = append(v.Trials, row)
		if x < warn {
			low++
		}
		if len(v.Trials) == 1 || x < lowest {
			lowest = x
		}
	}
	if low > 0 {
		v.Warnings = append(v.Warnings, fmt.Sprintf("%d of %d trials have Judged@10 below %s (lowest %s): most of their top-10 results are unjudged and count as irrelevant, so scores are lower bounds and trials that surface unjudged documents are penalised.", low, len(v.Trials), f4(warn), f4(lowest)))
	}
	if !hasBest {
		return v
	}
	v.addBest(best, queries, g, warn, catWarn)
	return v
}

// coverageThreshold is the Judged@10 below which coverage is warned
// about: warn itself, or, when the ceiling records the ideal ranking's
// Judged@10 r, warn times r (per category, times the category's r), with
// r and warn as text for the page ("" without a ceiling's).
func coverageThreshold(c *runs.Ceiling, warn float64) (threshold float64, perCategory func(string) float64, reachable, share string) {
	if c == nil {
		return warn, func(string) float64 { return warn }, "", ""
	}
	r, ok := c.Scorecard[CoverageMetric]
	if !ok {
		return warn, func(string) float64 { return warn }, "", ""
	}
	threshold = warn * r
	perCategory = func(cat string) float64 {
		if r, ok := c.Categories[cat][CoverageMetric]; ok {
			return warn * r
		}
		return threshold
	}
	return threshold, perCategory, f4(r), pct(warn)
}

// addBest adds the best trial's coverage to v: per category (low below
// catWarn's threshold), the queries with no judged document in their top
// 10 (blind), and warnings when its Judged@10 is below warn or some query
// is blind.
func (v *coverageView) addBest(best runs.Entry, queries []runs.QueryResult, g golden, warn float64, catWarn func(string) float64) {
	cats := make([]string, 0, len(best.Categories))
	for c := range best.Categories {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		if x, ok := best.Categories[c][CoverageMetric]; ok {
			v.Category = append(v.Category, coverageRow{Name: c, Value: f4(x), Low: x < catWarn(c)})
		}
	}
	for _, q := range queries {
		if x, ok := q.Scores[CoverageMetric]; ok && x == 0 && q.Error == "" && g.scored(q, best.Categories) {
			v.Blind = append(v.Blind, q.QueryID)
		}
	}
	if x, ok := best.Scorecard[CoverageMetric]; ok && x < warn {
		v.Warnings = append(v.Warnings, fmt.Sprintf("The best trial, %s, has Judged@10 %s: %s of its top-10 results were never judged.", best.Name, f4(x), pct(1-x)))
	}
	if len(v.Blind) > 0 {
		v.Warnings = append(v.Warnings, fmt.Sprintf("%d queries of the best trial have no judged document in their top 10.", len(v.Blind)))
	}
}
