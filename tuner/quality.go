package tuner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// AsIsTrial is the name of the one trial a quality check runs: the
// backend as it is configured, no parameter applied.
const AsIsTrial = "as-is"

// DefaultFailuresShown is how many failing queries a quality check lists
// (all are in quality.json).
const DefaultFailuresShown = 10

// AsIsExperiments is the experiment file a quality check records: one
// trial, AsIsTrial, with no parameters.
func AsIsExperiments() (*experiments.ExperimentFile, error) {
	return experiments.ParseExperimentFile("check-quality.json", []byte(`{"name": "check-quality", "baseline": {"name": "`+AsIsTrial+`", "params": {}}}`+"\n"))
}

// Reference is what a quality check compares with: a baseline (a run's
// scorecard and per-query scores) and its name for the summary.
type Reference struct {
	Name     string
	Baseline runs.Baseline
}

// ReferenceOf makes the reference of run's best trial (or the trial
// trial names).
func ReferenceOf(run *runs.Run, trial string) (*Reference, error) {
	e, err := runs.TrialOf(run, trial)
	if err != nil {
		return nil, err
	}
	if e.Status != runs.StatusOK {
		return nil, fmt.Errorf("run %s: trial %q did not succeed (%s)", run.ID(), e.Name, e.Status)
	}
	replay.Of(run)
	results, err := run.QueryResults(e.Index)
	if err != nil {
		return nil, err
	}
	return &Reference{Name: "run " + run.ID() + " trial " + e.Name, Baseline: runs.NewBaseline(run.ID(), e, run.Manifest.GoldenHash, results)}, nil
}

// QualityConfig is a quality check: the lifecycle's Config (its Trials are
// set to the one as-is trial), the golden set for the failure report, an
// optional reference, and how many failures to list.
type QualityConfig struct {
	Config
	Golden    *experiments.GoldenSet
	Reference *Reference
	// FailuresShown bounds the failures in the summary (default
	// DefaultFailuresShown; every failure is in quality.json).
	FailuresShown int
	// Corpus, when set, gives the failure report the text of results
	// whose backend returned none.
	Corpus string
}

// CheckQuality evaluates the backend once as it is (no parameter applied,
// nothing restarted by the check itself) through the run lifecycle (Run),
// so the run directory is like any run's, then builds the quality summary:
// scorecard overall, per category and difficulty, routing accuracy per
// category, the gates (relative ones resolved on the reference first),
// the paired comparison with the reference and the failure report. It
// writes quality.json and baseline.json into the run. The error is the
// run's; failed gates are in Quality.GatesPass, not an error.
func CheckQuality(ctx context.Context, c QualityConfig) (*runs.Quality, *Outcome, error) {
	if err := c.asIs(); err != nil {
		return nil, nil, err
	}
	out, runErr := Run(ctx, c.Config)
	if out == nil {
		return nil, nil, runErr
	}
	best, ok := out.Best()
	if !ok {
		return nil, out, runErr
	}
	replay.Of(out.Run)
	results, err := out.Run.QueryResults(best.Index)
	if err != nil {
		return nil, out, errors.Join(runErr, err)
	}
	q := &runs.Quality{
		Run: out.Run.ID(), Trial: best.Name, Backend: out.Run.Manifest.Backend, GoldenHash: out.Run.Manifest.GoldenHash,
		Summary: best.Summary, Primary: best.Primary, Metrics: c.Scorer.Metrics(), GatesPass: true,
		RoutingByCategory: routingByCategory(results),
	}
	for _, g := range out.Gates {
		q.Gates = append(q.Gates, g.check())
		q.GatesPass = q.GatesPass && g.Pass
	}
	if c.Reference != nil {
		if q.Against, err = against(ctx, c.Reference, best, results, q.Metrics, q.GoldenHash, c.Stats); err != nil {
			return nil, out, errors.Join(runErr, err)
		}
	}
	if err := c.writeQuality(out.Run, q, best, results); err != nil {
		return q, out, errors.Join(runErr, err)
	}
	return q, out, runErr
}

// asIs makes c one trial of the backend as it runs (no study, replay,
// sharing or held-out split) and resolves relative gates against the
// reference (refused without one).
func (c *QualityConfig) asIs() error {
	ef, err := AsIsExperiments()
	if err != nil {
		return err
	}
	trials, _, err := ef.Expand()
	if err != nil {
		return err
	}
	c.Trials, c.Study, c.Replay, c.Shared, c.HeldOut = trials, nil, nil, nil, nil
	if c.Reference != nil {
		if c.Gates, err = ResolveGates(c.Gates, c.Reference.Baseline.Value); err != nil {
			return inputerr.Wrap(fmt.Errorf("--against %s: %w", c.Reference.Name, err))
		}
		return nil
	}
	for _, g := range c.Gates {
		if g.Ref {
			return inputerr.Wrap(fmt.Errorf("gate %q is relative to a reference: give one with --against RUN|latest-on-branch|FILE", g.Text))
		}
	}
	return nil
}

// writeQuality adds the failure report to q (the first FailuresShown
// failures; quality.json keeps them all) and writes quality.json and the
// run's baseline.json.
func (c QualityConfig) writeQuality(run *runs.Run, q *runs.Quality, best runs.Entry, results []runs.QueryResult) error {
	all := failures(c.Queries, c.Golden, results)
	if c.Corpus != "" && len(all) > 0 {
		if err := fillText(all, c.Corpus); err != nil {
			fmt.Fprintf(c.Log, "warning: failure report: the corpus's text: %v\n", err)
		}
	}
	q.FailureCount = len(all)
	shown := c.FailuresShown
	if shown <= 0 {
		shown = DefaultFailuresShown
	}
	q.Failures = all[:min(shown, len(all))]
	full := *q
	full.Failures = all
	if err := run.WriteJSON(runs.QualityFile, full); err != nil {
		return err
	}
	data, err := runs.NewBaseline(run.ID(), best, q.GoldenHash, results).Encode()
	if err != nil {
		return err
	}
	return run.WriteFile(runs.BaselineFile, data)
}

// routingByCategory is the routing accuracy of each category with an
// expected routing.
func routingByCategory(results []runs.QueryResult) map[string]float64 {
	cats := map[string]bool{}
	for _, r := range results {
		if r.Expected != "" && r.Category != "" {
			cats[r.Category] = true
		}
	}
	if len(cats) == 0 {
		return nil
	}
	out := map[string]float64{}
	for cat := range cats {
		out[cat], _ = routingAccuracy(results, cat)
	}
	return out
}

// against compares the check's results with the reference: a paired
// comparison per metric (primary first, then the scorecard's; one family
// under the statistics' correction), with the reference's and current
// means, and the per-category deltas of the primary score.
func against(ctx context.Context, ref *Reference, e runs.Entry, all []runs.QueryResult, shown []string, goldenHash string, o analysis.StatsOptions) (*runs.Against, error) {
	o = o.WithDefaults()
	base := ref.Baseline.Results()
	var results []runs.QueryResult // the scored ones: a baseline keeps no others
	for _, r := range all {
		if !r.Unjudged && r.Error == "" {
			results = append(results, r)
		}
	}
	a := &runs.Against{Reference: ref.Name, GoldenHashDiffers: ref.Baseline.GoldenHash != "" && ref.Baseline.GoldenHash != goldenHash}
	metricNames := []string{analysis.PrimaryMetric}
	for _, m := range shown {
		_, here := e.Scorecard[m]
		if _, ok := ref.Baseline.Scorecard[m]; ok && here {
			metricNames = append(metricNames, m)
		}
	}
	var paired []stats.Paired
	var means [][2]float64
	for _, m := range metricNames {
		x, y, _, err := analysis.PairScores(base, results, m, "reference", e.Name)
		if err != nil {
			return nil, err
		}
		if len(x) == 0 {
			return nil, fmt.Errorf("--against %s: no query scored on both sides (is it the same golden set?)", ref.Name)
		}
		p, err := stats.CompareContext(ctx, y, x, analysis.DeriveSeed(o.Seed, "against", m), o.Thresholds)
		if err != nil {
			return nil, fmt.Errorf("against: %w", err)
		}
		paired = append(paired, p)
		means = append(means, [2]float64{stats.Mean(x), stats.Mean(y)})
	}
	cs, err := analysis.Decide(paired, "reference", "metrics", o)
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		c.Metric = metricNames[i]
		// One family of metrics, not of trials.
		c.Rule = strings.Replace(c.Rule, " trials", " metrics", 1)
		a.Metrics = append(a.Metrics, runs.MetricDelta{Metric: metricNames[i], Reference: runs.Round(means[i][0]), Current: runs.Round(means[i][1]),
			Paired: *c, Verdict: runs.Verdict(*c)})
	}
	if a.Categories, err = analysis.CategoryDeltas(ctx, base, results, o); err != nil {
		return nil, err
	}
	if oa, ob := analysis.OnlyIn(base, results), analysis.OnlyIn(results, base); oa+ob > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("the reference and this run scored different queries (%d only in the reference, %d only here): compared on those both scored", oa, ob))
	}
	for _, cd := range a.Categories {
		if cd.Delta.Warning != "" {
			a.Warnings = append(a.Warnings, cd.Delta.Warning)
		}
	}
	return a, nil
}

// failures lists the failing queries, in golden-set order: a judged query
// none of whose highest-graded documents is in the top 3, or a query whose
// routing is not the expected one.
func failures(queries []scoring.Query, gs *experiments.GoldenSet, results []runs.QueryResult) []runs.Failure {
	byID := map[string]runs.QueryResult{}
	for _, r := range results {
		byID[r.QueryID] = r
	}
	golden := map[string]*experiments.Query{}
	if gs != nil {
		for i := range gs.Queries {
			golden[gs.Queries[i].ID] = &gs.Queries[i]
		}
	}
	var out []runs.Failure
	for _, q := range queries {
		r, ok := byID[q.ID]
		if !ok {
			continue
		}
		f := runs.Failure{QueryID: q.ID, Query: q.Text, Category: q.Category, Routing: r.Routing, ExpectedRouting: q.ExpectedRouting}
		for i := 0; i < len(r.Top) && i < 3; i++ {
			f.Top = append(f.Top, r.Top[i])
		}
		if r.Error != "" {
			f.Reasons = append(f.Reasons, "search failed: "+r.Error)
		}
		high := -1
		for _, g := range q.Judgments {
			high = max(high, g)
		}
		if high > 0 {
			for i, d := range r.Top {
				if d.Grade >= high {
					f.BestRank = i + 1
					break
				}
			}
			if r.Error == "" && (f.BestRank == 0 || f.BestRank > 3) {
				f.Reasons = append(f.Reasons, fmt.Sprintf("no result of grade %d in the top 3", high))
			}
			if gq := golden[q.ID]; gq != nil {
				for _, j := range gq.Judgments {
					if j.Grade == high {
						f.Expected = append(f.Expected, runs.ExpectedPassage{DocID: j.DocID, Passage: j.Substring, Pattern: j.Pattern, Grade: j.Grade})
					}
				}
			}
		}
		if q.ExpectedRouting != "" && r.Error == "" && r.Routing != q.ExpectedRouting {
			f.Reasons = append(f.Reasons, fmt.Sprintf("routing %q, expected %q", r.Routing, q.ExpectedRouting))
		}
		if len(f.Reasons) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// fillText gives the failures' top results without text the start of
// their document's text in corpus.
func fillText(fs []runs.Failure, corpus string) error {
	docs, err := CorpusDocuments(corpus)
	if err != nil {
		return err
	}
	text := make(map[string]string, len(docs))
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	for i := range fs {
		for j := range fs[i].Top {
			if d := &fs[i].Top[j]; d.Text == "" {
				d.Text = scoring.ExcerptText(text[d.DocID])
			}
		}
	}
	return nil
}
