package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
)

// page is everything the template renders. Every slice is in a fixed
// order, so the same run gives the same bytes.
type page struct {
	Title    string
	Manifest manifestView
	Primary  string
	Baseline string
	Best     string
	// Verdict is the run's verdict line: what to ship and how sure.
	Verdict string
	Notes   []string // statistical and data caveats, shown at the top
	Stats   string   // how the comparisons were computed, when they were
	HeldOut *heldOutView
	Gates   *gatesView // the gates last checked on the run (gates.json)
	// Segments is the best trial's scores per segment (Options.By).
	Segments *segmentsView
	// Latency is the measured latency and Pareto front (latency.json).
	Latency *latencyView

	Leaderboard leaderboardView
	Categories  categoryView
	Params      []chart.Param
	// History is the optimization history (runs/chart, as tune ui draws it),
	// HistoryData its table.
	History, HistoryData template.HTML
	// Heatmaps are the pairs of numeric parameters'; Importance, for a
	// study, each parameter's η² (ImportanceMethod says how).
	Heatmaps         []chart.Heatmap
	Importance       *chart.Importance
	ImportanceMethod string
	// Parallel is a study's parallel-coordinates chart.
	Parallel *chart.Parallel
	Pruned   bool // some trial was pruned (drawn at its partial score)
	Parity   parityView
	Coverage coverageView
	Failures failureView
}

type manifestView struct {
	ID, Status, Started, Finished, Backend, Error string
	Experiments, Golden, Args                     string
	Seed                                          int64
	Trials, Restarts                              int
}

// bestQueries reads the best trial's per-query results (a replayed
// trial's derived by the run's Deriver); nil, with a note on p, when they
// cannot be read or there is no best trial.
func bestQueries(run *runs.Run, best runs.Entry, hasBest bool, p *page) []runs.QueryResult {
	if !hasBest {
		return nil
	}
	queries, err := run.QueryResults(best.Index)
	if err != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("Per-query results of the best trial could not be read (%v): no worst queries and no per-query coverage.", err))
		return nil
	}
	return queries
}

type segmentsView struct {
	By   string
	Rows []segmentRow
}

type segmentRow struct {
	Name, Queries, Primary, Delta, NoRelevant string
}

// newSegmentsView is s as the report shows it ("—" for no delta).
func newSegmentsView(s *runs.Segments) *segmentsView {
	v := &segmentsView{By: s.By}
	for _, r := range s.Rows {
		row := segmentRow{Name: r.Segment, Queries: strconv.Itoa(r.Queries), Primary: f4(r.Primary), Delta: "—", NoRelevant: strconv.Itoa(r.NoRelevant)}
		if r.Delta != nil {
			row.Delta = runs.FormatDelta(*r.Delta)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// baselinePrimary is the baseline's primary score by query id, nil when
// the best trial is the baseline or its results cannot be read.
func baselinePrimary(run *runs.Run, best runs.Entry, baseline *runs.Entry) map[string]float64 {
	if baseline == nil || baseline.Name == best.Name {
		return nil
	}
	rs, err := run.QueryScores(baseline.Index)
	if err != nil {
		return nil
	}
	ref := make(map[string]float64, len(rs))
	for _, r := range rs {
		if !r.Unjudged && r.Error == "" {
			ref[r.QueryID] = r.Primary
		}
	}
	return ref
}

// build loads what the report needs from the run directory: the golden
// set and the trial records are read beside the leaderboard.
func build(run *runs.Run, o Options, given *runs.Leaderboard) (*page, error) {
	var (
		gold   golden
		trials []runs.TrialRecord
		terr   error
		wg     sync.WaitGroup
	)
	wg.Go(func() { gold = readGolden(run.Dir) })
	wg.Go(func() { trials, terr = run.Trials() })
	lb, notes, err := leaderboard(run, given)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	p, stats := newPage(run, lb, notes)
	best, hasBest := lb.Best()
	baseline := okTrial(lb, lb.Baseline)
	p.HeldOut = newHeldOutView(lb.HeldOut)
	if p.Gates, err = newGatesView(run); err != nil {
		return nil, err
	}
	varying := lb.Varying()
	// The charts are drawn beside the rest of the page.
	var (
		lat         *latencyView
		lerr        error
		charts      sync.WaitGroup
		params      []chart.Param
		history     template.HTML
		historyData template.HTML
		heatmaps    []chart.Heatmap
		importance  *chart.Importance
		parallel    *chart.Parallel
	)
	defer charts.Wait()
	charts.Go(func() { params = chart.Params(lb) })
	charts.Go(func() { history, historyData = chart.History(lb), chart.HistoryData(lb) })
	charts.Go(func() { heatmaps = chart.Heatmaps(lb) })
	charts.Go(func() {
		if imp, ok := chart.Importances(lb); ok {
			importance = &imp
		}
		if pc, ok := chart.ParallelCoordinates(lb); ok {
			parallel = &pc
		}
	})
	charts.Go(func() { lat, lerr = newLatencyView(run, lb) })
	p.Leaderboard = newLeaderboardView(lb, varying, stats)

	queries := bestQueries(run, best, hasBest, p)
	if o.By != "" && queries != nil {
		p.Segments = newSegmentsView(runs.NewSegments(o.By, o.Segments, queries, baselinePrimary(run, best, baseline)))
	}
	if hasBest {
		p.Categories, err = newCategoryView(best, baseline, queries, gold)
		if err != nil {
			return nil, err
		}
	}
	charts.Wait()
	p.Params, p.History, p.HistoryData = params, history, historyData
	p.Heatmaps, p.Importance, p.ImportanceMethod, p.Parallel = heatmaps, importance, chart.ImportanceMethod, parallel
	if terr != nil {
		return nil, fmt.Errorf("report: %w", terr)
	}
	if p.Latency = lat; lerr != nil {
		return nil, lerr
	}
	p.Parity = newParityView(trials)
	p.Coverage = newCoverageView(lb, best, hasBest, queries, gold, o.JudgedWarn)
	p.Failures = newFailureView(lb, best, hasBest, queries, gold, o)
	return p, nil
}

// newPage is the report's head: its title and manifest, the primary score,
// baseline and best trial, whether a trial was pruned, how the statistics
// were computed, and the notes on the run as a whole (notes first, then
// the leaderboard's warnings, a missing best trial, missing statistics,
// power and the held-out confirmation). stats is whether any trial has a
// paired comparison.
func newPage(run *runs.Run, lb runs.Leaderboard, notes []string) (*page, bool) {
	p := &page{
		Title:    "fusiontune report · " + run.Manifest.ID,
		Manifest: newManifestView(run.Manifest),
		Primary:  lb.PrimaryLine(),
		Baseline: lb.Baseline,
		Notes:    append(notes, runWarnings(lb)...),
	}
	if p.Manifest.ID == "" {
		p.Manifest.ID = run.ID()
		p.Title = "fusiontune report · " + run.ID()
	}
	if best, ok := lb.Best(); ok {
		p.Best = best.Name
	} else {
		p.Notes = append(p.Notes, "No trial succeeded: there is no best trial to chart or inspect.")
	}
	statNotes, stats := statsNotes(lb.Trials)
	p.Notes = append(p.Notes, statNotes...)
	for _, e := range lb.Trials {
		p.Pruned = p.Pruned || e.Status == runs.StatusPruned
	}
	p.Stats = statsText(lb.Stats)
	if lb.Verdict != nil {
		p.Verdict = lb.Verdict.Line
	}
	if lb.Power != nil && (lb.Verdict == nil || lb.Verdict.Kind == runs.VerdictKeep) {
		p.Notes = append(p.Notes, lb.Power.Line()+".")
	}
	if h := lb.HeldOut; h != nil && h.Confirmation != nil {
		p.Notes = append(p.Notes, h.ConfirmLine()+".")
	}
	return p, stats
}

// okTrial is the last trial of lb named name that succeeded; nil when
// none did.
func okTrial(lb runs.Leaderboard, name string) *runs.Entry {
	var found *runs.Entry
	for i := range lb.Trials {
		if lb.Trials[i].Name == name && lb.Trials[i].Status == runs.StatusOK {
			found = &lb.Trials[i]
		}
	}
	return found
}

// statsNotes says which statistics the trials lack (paired comparisons
// against the baseline, category intervals, or both) and so what the
// report's deltas and bars show instead; stats is whether any trial has a
// paired comparison.
func statsNotes(trials []runs.Entry) (notes []string, stats bool) {
	catStats := false
	for _, e := range trials {
		stats = stats || e.Comparison != nil
		catStats = catStats || len(e.CategoryIntervals) > 0
	}
	switch {
	case !stats && !catStats:
		notes = append(notes, "Statistics were not computed for this run: deltas are differences of means, without intervals or significance, and category bars show means without intervals.")
	case !stats:
		notes = append(notes, "No paired comparison against the baseline was recorded: deltas are differences of means, without intervals or significance.")
	case !catStats:
		notes = append(notes, "No category intervals were recorded: category bars show means without intervals.")
	}
	return notes, stats
}

// leaderboard reads leaderboard.json; a run interrupted before it was
// written gets one rebuilt from its trial records, and a note saying so.
func leaderboard(run *runs.Run, given *runs.Leaderboard) (runs.Leaderboard, []string, error) {
	if given != nil {
		return *given, nil, nil
	}
	lb, err := run.ReadLeaderboard()
	if err == nil {
		return lb, nil, nil
	}
	if !isNotExist(err) {
		return lb, nil, fmt.Errorf("report: %w", err)
	}
	trials, terr := run.Trials()
	if terr != nil {
		return lb, nil, fmt.Errorf("report: %w", terr)
	}
	set := map[string]bool{}
	for _, t := range trials {
		for m := range t.Scorecard {
			set[m] = true
		}
	}
	metrics := slices.Sorted(maps.Keys(set))
	lb = runs.NewLeaderboard("primary score (as recorded per trial)", metrics, trials)
	return lb, []string{"leaderboard.json is missing (the run did not finish): the leaderboard was rebuilt from the trial records."}, nil
}

func newManifestView(m runs.Manifest) manifestView {
	v := manifestView{
		ID: m.ID, Status: m.Status, Backend: m.Backend, Error: m.Error,
		Experiments: short(m.Experiments), Golden: short(m.GoldenHash),
		Seed: m.Seed, Trials: m.Trials, Restarts: m.Restarts,
		Started: stamp(m.Started), Finished: stamp(m.Finished),
	}
	for i, a := range m.Args {
		if i > 0 {
			v.Args += " "
		}
		v.Args += a
	}
	return v
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// f4 formats a score with four decimals.
func f4(v float64) string { return fmt.Sprintf("%.4f", v) }

// pct formats a share in [0, 1] as a percentage.
func pct(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }

// svg marks chart markup produced by this package (never user text) as safe
// to embed; every string inside it was escaped by the SVG canvas.
func svg(b []byte) template.HTML { return template.HTML(b) }

// statsText describes the run's statistics step in one sentence.
func statsText(s *runs.StatsInfo) string {
	if s == nil {
		return ""
	}
	t := fmt.Sprintf("Decision against %s: %s (+ or − exactly when the interval excludes 0); %d permutations in the randomization test; secondary, not deciding: Wilcoxon signed-rank p and %g%% paired bootstrap intervals (%d resamples) in leaderboard.json; category intervals need %d queries; seed %d.",
		s.Against, s.Rule, s.Permutations, 100*s.Level, s.Resamples, s.MinCategoryQueries, s.Seed)
	if s.Rule == "" { // a run recorded before the one decision rule
		t = fmt.Sprintf("%s against %s, %s-corrected, α = %g; %g%% paired bootstrap intervals (%d resamples); %d permutations in the randomization test; category intervals need %d queries; seed %d.",
			s.Test, s.Against, s.Correction, s.Alpha, 100*s.Level, s.Resamples, s.Permutations, s.MinCategoryQueries, s.Seed)
	}
	if s.Against == "" {
		t = fmt.Sprintf("No baseline to compare against; %g%% bootstrap intervals per category (%d resamples, at least %d queries); seed %d.",
			100*s.Level, s.Resamples, s.MinCategoryQueries, s.Seed)
	}
	return t
}

type heldOutView struct {
	Trial, Split, Primary, Dev, Diff string
	Queries, Failed                  int
}

// newHeldOutView shows the chosen trial's score on the held-out split
// beside the dev score it was chosen by.
func newHeldOutView(h *runs.HeldOut) *heldOutView {
	if h == nil {
		return nil
	}
	return &heldOutView{Trial: h.Trial, Split: h.Split, Primary: f4(h.Primary), Dev: f4(h.DevPrimary),
		Diff: signed(h.Primary - h.DevPrimary), Queries: h.Queries, Failed: h.Failed}
}

// runWarnings are the leaderboard's warnings except the per-comparison
// ones ("TRIAL vs BASELINE: ..."), which the leaderboard section already
// lists under the table beside their trials.
func runWarnings(lb runs.Leaderboard) []string {
	shown := map[string]bool{}
	for _, e := range lb.Trials {
		if c := e.Comparison; c != nil {
			for _, w := range c.Warnings {
				shown[e.Name+" vs "+c.Against+": "+w] = true
			}
		}
	}
	var out []string
	for _, w := range lb.Warnings {
		if !shown[w] {
			out = append(out, w)
		}
	}
	return out
}

// gatesView shows the quality gates recorded in gates.json.
type gatesView struct {
	Trial   string
	Pass    bool
	Failed  int
	Results []runs.GateCheck
}

// newGatesView reads gates.json; nil when no gates were checked.
func newGatesView(run *runs.Run) (*gatesView, error) {
	g, ok, err := run.ReadGates()
	if err != nil || !ok {
		return nil, err
	}
	return &gatesView{Trial: g.Trial, Pass: g.Pass, Failed: len(g.Failed()), Results: g.Results}, nil
}
