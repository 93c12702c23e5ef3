package ui

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

// worstQueries is how many of a trial's lowest-scoring queries its page
// lists.
const worstQueries = 10

// TieDelta is the per-query difference of the primary score within which
// the trial and compare pages count a query as tied.
const TieDelta = 1e-9

// trialData is a trial's page.
type trialData struct {
	Run, Name, Label, Status string
	Rank                     int
	Primary, Delta, Interval string
	Sig, Baseline, Apply     string
	Params                   []string // "name = value", defaults marked
	Metrics                  []metricRow
	MetricCmp                bool // some metric has a comparison
	Categories               []trialCategory
	Deltas, DeltasData       template.HTML
	Worst                    []queryRow
	Err                      string // per-query results could not be read
}

// metricRow is one metric of a trial's scorecard, with its paired
// comparison with the baseline when one was made.
type metricRow struct {
	Metric, Value, Delta, Interval, Sig string
}

// trialCategory is a trial's primary score on one category.
type trialCategory struct {
	Category, Score, Interval string
	N                         int
}

// queryRow is one query of a trial: its text, score, Δ with the
// baseline, label strip and top documents by title.
type queryRow struct {
	ID, Text, Category, Labels string
	Primary, Delta             string
	Top                        []docRow
}

// docRow is a retrieved document as a trial page lists it.
type docRow struct {
	ID, Title string
	Grade     int
}

// trialPage shows one trial: parameters, scorecard with intervals,
// per-category scores, the per-query differences with the baseline, the
// worst queries, and links to compare, the microscope, judging and the
// apply command.
func (s *Server) trialPage(w http.ResponseWriter, r *http.Request) {
	run, lb, ok := s.runBoard(w, r)
	if !ok {
		return
	}
	e, err := lb.Pick(r.PathValue("trial"))
	if err != nil {
		s.fail(w, http.StatusNotFound, fmt.Errorf("run %s: %w", run.ID(), err))
		return
	}
	d := trialData{Run: run.ID(), Name: e.Name, Label: lb.Labels()[e.Name], Status: e.Status, Rank: e.Rank,
		Primary: fmt.Sprintf("%.4f", e.Primary), Baseline: lb.Baseline,
		Apply: "tune apply " + shellWord(run.ID()) + " " + shellWord(e.Name)}
	if e.Status == runs.StatusPruned && e.Fraction > 0 {
		d.Status = fmt.Sprintf("pruned at %.0f%% of the queries: its scores are partial", 100*e.Fraction)
	}
	if e.Delta != nil {
		d.Delta = fmt.Sprintf("%+.4f", *e.Delta)
	}
	if c := e.Comparison; c != nil {
		d.Interval, d.Sig = fmt.Sprintf("[%+.4f, %+.4f] (%s)", c.Low, c.High, levelText(c.Level)), sigText(c)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		d.Params = append(d.Params, k+" = "+paramtext.Rounded(e.Params[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Defaults)) {
		d.Params = append(d.Params, k+" = "+paramtext.Rounded(e.Defaults[k])+" (default)")
	}
	cmps := map[string]runs.Comparison{}
	for _, c := range e.MetricComparisons {
		cmps[c.Metric] = c
		d.MetricCmp = true
	}
	for _, m := range lb.Metrics {
		row := metricRow{Metric: m, Value: score(e.Scorecard, m)}
		if c, ok := cmps[m]; ok {
			row.Delta, row.Interval, row.Sig = fmt.Sprintf("%+.4f", c.Delta), fmt.Sprintf("[%+.4f, %+.4f]", c.Low, c.High), sigText(&c)
		}
		d.Metrics = append(d.Metrics, row)
	}
	for _, c := range categoryColumns([]runs.Entry{e}) {
		row := trialCategory{Category: c, Score: score(e.Categories[c], "primary")}
		if iv, ok := e.CategoryIntervals[c]; ok {
			row.N = iv.N
			if iv.Warning != "" {
				row.Interval = iv.Warning
			} else {
				row.Interval = fmt.Sprintf("[%.4f, %.4f]", iv.Low, iv.High)
			}
		}
		d.Categories = append(d.Categories, row)
	}
	if err := s.trialQueries(run, lb, e, &d); err != nil {
		d.Err = err.Error()
	}
	s.render(w, "trial", e.Name+" · run "+run.ID(), d)
}

// trialQueries fills d's per-query differences with the baseline and its
// worst queries from the recorded per-query results.
func (s *Server) trialQueries(run *runs.Run, lb runs.Leaderboard, e runs.Entry, d *trialData) error {
	results, err := run.QueryResults(e.Index)
	if err != nil {
		return fmt.Errorf("per-query results of %s: %w", e.Name, err)
	}
	base := map[string]runs.QueryResult{}
	if b, err := lb.Find(lb.Baseline); err == nil && lb.Baseline != "" && b.Name != e.Name && b.Status == runs.StatusOK {
		rs, err := run.QueryResults(b.Index)
		if err != nil {
			return fmt.Errorf("per-query results of the baseline: %w", err)
		}
		for _, q := range rs {
			base[q.QueryID] = q
		}
	}
	var deltas []chart.Delta
	scored := results[:0:0]
	for _, q := range results {
		if q.Unjudged || q.Error != "" && q.OnError == "skip" {
			continue
		}
		scored = append(scored, q)
		if b, ok := base[q.QueryID]; ok {
			deltas = append(deltas, chart.Delta{Query: q.QueryID, Value: q.Primary - b.Primary})
		}
	}
	d.Deltas = chart.Deltas(deltas, TieDelta, e.Name+" vs "+lb.Baseline)
	d.DeltasData = chart.DeltasData(deltas, TieDelta, e.Name+" vs "+lb.Baseline)
	slices.SortStableFunc(scored, func(a, b runs.QueryResult) int {
		if c := cmp.Compare(a.Primary, b.Primary); c != 0 {
			return c
		}
		return cmp.Compare(a.QueryID, b.QueryID)
	})
	for _, q := range scored[:min(worstQueries, len(scored))] {
		row := queryRow{ID: q.QueryID, Category: q.Category, Labels: q.Labels, Primary: fmt.Sprintf("%.4f", q.Primary)}
		if sq, ok := s.query(q.QueryID); ok {
			row.Text = sq.Text
		}
		if b, ok := base[q.QueryID]; ok {
			row.Delta = fmt.Sprintf("%+.4f", q.Primary-b.Primary)
		}
		for _, doc := range q.Top[:min(3, len(q.Top))] {
			row.Top = append(row.Top, docRow{ID: doc.DocID, Title: s.title(doc.DocID), Grade: doc.Grade})
		}
		d.Worst = append(d.Worst, row)
	}
	return nil
}

// title is a document's title ("" when unknown or without a corpus).
func (s *Server) title(id string) string {
	if s.o.Docs == nil {
		return ""
	}
	doc, _ := s.o.Docs(id)
	return doc.Title
}
