package judging

import (
	"context"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging/robust"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// RobustOptions says what Robust weighs; robust.Input's fields without
// the trials and labels, which Robust reads.
type RobustOptions struct {
	Gold      scoring.Judgments
	Scorer    scoring.Scorer
	MaxGrade  int
	Top       int
	Resamples *int
	Seed      uint64
}

// Robust checks that run's winner does not depend on the judge
// (robust.Analyze) over its successful trials' recorded results and the
// label store at storeURL's labels of the run's dataset (labels of
// queries Gold lacks are left out).
func Robust(ctx context.Context, run *runs.Run, storeURL string, o RobustOptions) (*robust.Report, error) {
	ls, err := latestLabels(ctx, storeURL, dataset.RunDatasetID(run))
	if err != nil {
		return nil, err
	}
	kept := ls[:0:0]
	for _, l := range ls {
		if _, ok := o.Gold[l.Query]; ok {
			kept = append(kept, l)
		}
	}
	_, ts, err := runTrials(run, nil)
	if err != nil {
		return nil, err
	}
	r, err := robust.Analyze(robust.Input{Trials: ts, Gold: o.Gold, Labels: kept, Scorer: o.Scorer, MaxGrade: o.MaxGrade, Top: o.Top, Resamples: o.Resamples, Seed: o.Seed})
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	return r, nil
}
