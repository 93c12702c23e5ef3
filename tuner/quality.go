package tuner

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/verdict"
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

// QualityConfig is a quality check: the lifecycle's Config (its Trials are
// set to the one as-is trial), the golden set for the failure report, an
// optional reference, and how many failures to list.
type QualityConfig struct {
	Config
	Golden    *experiments.GoldenSet
	Reference *verdict.Reference
	// FailuresShown bounds the failures in the summary (default
	// DefaultFailuresShown; every failure is in quality.json).
	FailuresShown int
	// Corpus, when set, gives the failure report the text of results
	// whose backend returned none.
	Corpus string
	// By, when set, splits the scorecard by a query attribute
	// (experiments.CheckSegmentation).
	By string
	// Verbose, when not nil, gets a line per query (runs.VerboseLine).
	Verbose io.Writer
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
	if err := c.checkBy(); err != nil {
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
		RoutingByCategory: verdict.RoutingByCategory(results), Filter: c.Filter,
	}
	if c.By != "" {
		q.Segments = c.segments(results)
	}
	if c.Verbose != nil {
		queryLines(c.Verbose, best.Name, results, c.Queries)
	}
	for _, g := range out.Gates {
		q.Gates = append(q.Gates, g.GateCheck())
		q.GatesPass = q.GatesPass && g.Pass
	}
	if c.Reference != nil {
		if q.Against, err = verdict.Against(ctx, c.Reference, best, results, q.Metrics, q.GoldenHash, c.Stats); err != nil {
			return nil, out, errors.Join(runErr, err)
		}
	}
	if err := c.writeQuality(out.Run, q, best, results); err != nil {
		return q, out, errors.Join(runErr, err)
	}
	return q, out, runErr
}

// checkBy refuses an unknown c.By.
func (c *QualityConfig) checkBy() error {
	if c.By == "" {
		return nil
	}
	if err := experiments.CheckSegmentation(c.By); err != nil {
		return inputerr.Wrap(fmt.Errorf("--by: %w", err))
	}
	return nil
}

// segments splits results by c.By, with the delta against the reference
// when there is one.
func (c QualityConfig) segments(results []runs.QueryResult) *runs.Segments {
	of := make(map[string]string, len(c.Golden.Queries))
	for _, q := range c.Golden.Queries {
		of[q.ID] = q.Segment(c.By)
	}
	var ref map[string]float64
	if c.Reference != nil {
		ref = make(map[string]float64, len(c.Reference.Baseline.Queries))
		for _, q := range c.Reference.Baseline.Queries {
			ref[q.ID] = q.Primary
		}
	}
	return runs.NewSegments(c.By, of, results, ref)
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
		if c.Gates, err = verdict.ResolveGates(c.Gates, c.Reference.Baseline.Value); err != nil {
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
	all := verdict.Failures(c.Queries, c.Golden, results)
	if c.Corpus != "" && len(all) > 0 {
		if err := verdict.FillText(all, c.Corpus); err != nil {
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
