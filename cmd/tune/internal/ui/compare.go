package ui

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/runs/chart"
	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

type compareData struct {
	A, B    string
	Choices []string // RUN:TRIAL of the runs' trials, newest run first
	C       *runs.TrialComparison
	Err     string
	// Params are the parameters the two trials run with differently;
	// Deltas the per-query differences chart; Gains and Losses the
	// queries B improves and worsens most, side by side.
	Params        []paramDiff
	Deltas        template.HTML
	DeltasData    template.HTML
	Gains, Losses []sideBySide
}

// paramDiff is a parameter the two sides of a comparison set differently.
type paramDiff struct{ Name, A, B string }

// sideBySide is one query's two top-10 lists.
type sideBySide struct {
	ID, Text, Category string
	A, B, Delta        string
	TopA, TopB         []sideDoc
}

// sideDoc is a document in one side's list: Other is its rank in the
// other side's top 10 (0: absent).
type sideDoc struct {
	docRow
	Rank, Other int
}

// sideQueries is how many gains and how many losses the compare page
// shows side by side.
const sideQueries = 5

// sideDepth is how deep the side-by-side lists go.
const sideDepth = 10

// maxChoices bounds the trials the compare page offers in its lists.
const maxChoices = 500

// comparePage compares trial B against trial A (RUN:TRIAL each, as tune
// compare takes them): paired statistics, per-category deltas, ranking
// diffs and the queries that changed most.
func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	d := compareData{A: r.FormValue("a"), B: r.FormValue("b")}
	list, _ := s.o.Store.List()
	for i := len(list) - 1; i >= 0 && len(d.Choices) < maxChoices; i-- {
		lb, err := list[i].ReadLeaderboard()
		if err != nil {
			continue
		}
		for _, e := range lb.Trials {
			if e.Status == runs.StatusOK {
				d.Choices = append(d.Choices, list[i].ID()+":"+e.Name)
			}
		}
	}
	if d.A == "" || d.B == "" {
		s.render(w, "compare", "Compare", d)
		return
	}
	c, err := s.compare(r, d.A, d.B)
	if err != nil {
		d.Err = err.Error()
		s.renderCode(w, userErr(err), "compare", "Compare", d)
		return
	}
	d.C = &c
	if err := s.sideBySide(&d); err != nil {
		d.Err = err.Error()
	}
	s.render(w, "compare", "Compare", d)
}

// sideBySide fills d's parameter diff, per-query chart and the queries
// changed most either way, each with both top-10 lists.
func (s *Server) sideBySide(d *compareData) error {
	ra, ea, err := runs.ResolveTrial(s.o.Store, d.A)
	if err != nil {
		return err
	}
	rb, eb, err := runs.ResolveTrial(s.o.Store, d.B)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, e := range []runs.Entry{ea, eb} {
		for k := range e.Params {
			names[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(names)) {
		va, vb := "—", "—"
		if v, ok := ea.Value(k); ok {
			va = paramtext.Rounded(v)
		}
		if v, ok := eb.Value(k); ok {
			vb = paramtext.Rounded(v)
		}
		if va != vb {
			d.Params = append(d.Params, paramDiff{Name: k, A: va, B: vb})
		}
	}
	qa, err := ra.QueryResults(ea.Index)
	if err != nil {
		return err
	}
	qb, err := rb.QueryResults(eb.Index)
	if err != nil {
		return err
	}
	byID := map[string]runs.QueryResult{}
	for _, q := range qa {
		byID[q.QueryID] = q
	}
	var deltas []chart.Delta
	var pairs [][2]runs.QueryResult
	for _, q := range qb {
		a, ok := byID[q.QueryID]
		if !ok || a.Unjudged || q.Unjudged || a.Error != "" || q.Error != "" {
			continue
		}
		deltas = append(deltas, chart.Delta{Query: q.QueryID, Value: q.Primary - a.Primary})
		pairs = append(pairs, [2]runs.QueryResult{a, q})
	}
	d.Deltas = chart.Deltas(deltas, TieDelta, eb.Name+" vs "+ea.Name)
	d.DeltasData = chart.DeltasData(deltas, TieDelta, eb.Name+" vs "+ea.Name)
	slices.SortStableFunc(pairs, func(x, y [2]runs.QueryResult) int {
		if c := cmp.Compare(y[1].Primary-y[0].Primary, x[1].Primary-x[0].Primary); c != 0 {
			return c
		}
		return cmp.Compare(x[0].QueryID, y[0].QueryID)
	})
	for i := 0; i < len(pairs) && len(d.Gains) < sideQueries && pairs[i][1].Primary-pairs[i][0].Primary > TieDelta; i++ {
		d.Gains = append(d.Gains, s.side(pairs[i]))
	}
	for i := len(pairs) - 1; i >= 0 && len(d.Losses) < sideQueries && pairs[i][1].Primary-pairs[i][0].Primary < -TieDelta; i-- {
		d.Losses = append(d.Losses, s.side(pairs[i]))
	}
	return nil
}

// side is one query's two lists, each document with its rank in the
// other.
func (s *Server) side(p [2]runs.QueryResult) sideBySide {
	a, b := p[0], p[1]
	out := sideBySide{ID: a.QueryID, Category: a.Category, A: fmt.Sprintf("%.4f", a.Primary), B: fmt.Sprintf("%.4f", b.Primary),
		Delta: fmt.Sprintf("%+.4f", b.Primary-a.Primary)}
	if q, ok := s.query(a.QueryID); ok {
		out.Text = q.Text
	}
	list := func(top, other []runs.RankedDoc) []sideDoc {
		var docs []sideDoc
		for i, doc := range top[:min(sideDepth, len(top))] {
			sd := sideDoc{docRow: docRow{ID: doc.DocID, Title: s.title(doc.DocID), Grade: doc.Grade}, Rank: i + 1}
			for j, o := range other[:min(sideDepth, len(other))] {
				if o.DocID == doc.DocID {
					sd.Other = j + 1
				}
			}
			docs = append(docs, sd)
		}
		return docs
	}
	out.TopA, out.TopB = list(a.Top, b.Top), list(b.Top, a.Top)
	return out
}

func (s *Server) compare(r *http.Request, a, b string) (runs.TrialComparison, error) {
	for _, ref := range []string{a, b} {
		if _, err := s.resolve(runPart(ref)); err != nil {
			return runs.TrialComparison{}, err
		}
	}
	ra, ea, err := runs.ResolveTrial(s.o.Store, a)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	rb, eb, err := runs.ResolveTrial(s.o.Store, b)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	seed := ra.Manifest.Seed
	if seed == 0 {
		seed = experiments.DefaultSeed
	}
	o := analysis.CompareOptions{}
	if s.o.Compare != nil {
		o = s.o.Compare(seed)
	} else {
		o.Stats.Seed = seed
	}
	if len(o.Stats.Metrics) == 0 { // every metric both record per query
		o.Stats.Metrics = recordedMetrics(ra, ea, rb, eb)
	}
	return analysis.CompareRunsContext(r.Context(), ra, ea, rb, eb, o)
}

// runPart is the run of a RUN:TRIAL reference.
func runPart(ref string) string {
	for i := range len(ref) {
		if ref[i] == ':' {
			return ref[:i]
		}
	}
	return ref
}

// recordedMetrics are the metrics of a's leaderboard that both trials
// record per query (the paired tests need them), in its order.
func recordedMetrics(a *runs.Run, ea runs.Entry, b *runs.Run, eb runs.Entry) []string {
	lb, err := a.ReadLeaderboard()
	if err != nil {
		return nil
	}
	qa, err := a.QueryResults(ea.Index)
	if err != nil || len(qa) == 0 {
		return nil
	}
	qb, err := b.QueryResults(eb.Index)
	if err != nil || len(qb) == 0 {
		return nil
	}
	var out []string
	for _, m := range lb.Metrics {
		_, inA := qa[0].Scores[m]
		_, inB := qb[0].Scores[m]
		if inA && inB {
			out = append(out, m)
		}
	}
	return out
}
