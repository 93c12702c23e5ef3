package judging

import (
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// DecisionPoolOptions says what DecisionPool weighs.
type DecisionPoolOptions struct {
	// Judgments are the golden set's, merged with the label store's.
	Judgments scoring.Judgments
	// Scorer is the run's scorer; MaxGrade the scale's top grade (the
	// highest grade of Judgments when 0).
	Scorer   scoring.Scorer
	MaxGrade int
	// Dataset is the pairs' dataset id; RunDatasetID(run) when "".
	Dataset string
	// Leaderboard names the trials and the baseline; the run's
	// leaderboard.json when nil.
	Leaderboard *runs.Leaderboard
}

// DecisionPool weighs run's promotion decision (decision.Analyze) over
// every successful trial's recorded results: the leader, its lead over
// the baseline and the runner-up with their bounds, and the unjudged
// pairs that can change it, best first.
func DecisionPool(run *runs.Run, o DecisionPoolOptions) (*decision.Analysis, error) {
	if o.Dataset == "" {
		o.Dataset = dataset.RunDatasetID(run)
	}
	if o.MaxGrade == 0 {
		o.MaxGrade = highestGrade(o.Judgments)
	}
	lb, ts, err := runTrials(run, o.Leaderboard)
	if err != nil {
		return nil, err
	}
	return decision.Analyze(decision.Input{Trials: ts, Baseline: lb.Baseline, Judgments: o.Judgments, Scorer: o.Scorer, MaxGrade: o.MaxGrade, Dataset: o.Dataset})
}

// runTrials is lb (the run's leaderboard.json when nil) and its
// successful trials' recorded results (leaderboardTrials); a run without
// any is the user's error.
func runTrials(run *runs.Run, lb *runs.Leaderboard) (*runs.Leaderboard, []decision.Trial, error) {
	if lb == nil {
		l, err := run.ReadLeaderboard()
		if err != nil {
			return nil, nil, err
		}
		lb = &l
	}
	trials, err := leaderboardTrials(run, *lb)
	if err != nil {
		return nil, nil, err
	}
	if len(trials) == 0 {
		return nil, nil, inputerr.Wrap(fmt.Errorf("judge: run %s has no successful trial to weigh", run.ID()))
	}
	ts := make([]decision.Trial, len(trials))
	for i, t := range trials {
		ts[i] = decision.Trial{Name: t.name, Results: t.results}
	}
	return lb, ts, nil
}

// WriteDecisionPool writes the analysis's pairs as JSON lines to the file
// out (atomically; a file that cannot be written is a *inputerr.Error),
// or to stdout when out is "", and where the decision stands as format
// "text" or "json": to stdout with out, to stderr without.
func WriteDecisionPool(a *decision.Analysis, out, format string, stdout, stderr io.Writer) error {
	statsTo, err := writePairs(a.Pairs, out, stdout, stderr)
	if err != nil {
		return err
	}
	if format == "json" {
		data, err := runs.MarshalJSON(a)
		if err != nil {
			return err
		}
		_, err = statsTo.Write(data)
		return err
	}
	return a.WriteText(statsTo)
}
