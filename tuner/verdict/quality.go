package verdict

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

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

// RoutingByCategory is the routing accuracy of each category with an
// expected routing.
func RoutingByCategory(results []runs.QueryResult) map[string]float64 {
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

// Against compares the check's results with the reference: a paired
// comparison per metric (primary first, then the scorecard's; one family
// under the statistics' correction), with the reference's and current
// means, and the per-category deltas of the primary score.
func Against(ctx context.Context, ref *Reference, e runs.Entry, all []runs.QueryResult, shown []string, goldenHash string, o analysis.StatsOptions) (*runs.Against, error) {
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
			Paired: *c, Verdict: runs.ComparisonVerdict(*c)})
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

// Failures lists the failing queries, in golden-set order: a judged query
// none of whose highest-graded documents is in the top 3, or a query whose
// routing is not the expected one.
func Failures(queries []scoring.Query, gs *experiments.GoldenSet, results []runs.QueryResult) []runs.Failure {
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

// FillText gives the failures' top results without text the start of
// their document's text in corpus.
func FillText(fs []runs.Failure, corpus string) error {
	docs, err := dataset.CorpusDocuments(corpus)
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

// ExportBaseline copies the check's baseline (scorecard and per-query
// scores, runs.BaselineFile) from run to path, to commit beside the
// golden set.
func ExportBaseline(run *runs.Run, path string) error {
	data, err := os.ReadFile(filepath.Join(run.Dir, runs.BaselineFile))
	if err == nil {
		err = atomicfile.Write(path, data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("--export-baseline: %w", err)
	}
	return nil
}

// GatesFailed is the error of a check whose gates did not all pass,
// naming the failed ones; nil when they passed.
func GatesFailed(q *runs.Quality) error {
	if q.GatesPass {
		return nil
	}
	var failed []string
	for _, g := range q.Gates {
		if !g.Pass {
			failed = append(failed, g.Gate)
		}
	}
	return fmt.Errorf("%d of %d gates failed: %s", len(failed), len(q.Gates), strings.Join(failed, ", "))
}
