package analysis

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/parallel"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// SetJudgedOnly gives each successful trial of lb its judged-only values
// (JudgedOnlyMetrics of the scorecard, from its recorded results under
// judgments) and adds the leaderboard's unjudged warning when it applies
// (runs.Leaderboard.UnjudgedWarning).
// It stops with ctx's error when ctx is done (an interrupted analysis).
func SetJudgedOnly(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, judgments scoring.Judgments, sc scoring.Scorer) error {
	return SetJudgedOnlyFrom(ctx, run, lb, judgments, sc, nil, nil)
}

// SetJudgedOnlyFrom is SetJudgedOnly taking the values of the trials whose
// records pre computed them for (records: by index; nil: none), the others
// computed on every core.
func SetJudgedOnlyFrom(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, judgments scoring.Judgments, sc scoring.Scorer, pre *Prestats, records map[int]runs.TrialRecord) error {
	names := scoring.JudgedOnlyMetrics(sc.Metrics())
	if len(names) == 0 {
		return nil
	}
	got := make([]map[string]float64, len(lb.Trials))
	errs := make([]error, len(lb.Trials))
	parallel.For(len(lb.Trials), func(i int) {
		e := lb.Trials[i]
		if e.Status != runs.StatusOK {
			return
		}
		if rec, ok := records[e.Index]; ok {
			if f, ok := pre.factsFor(rec); ok && f.judged != nil {
				got[i] = f.judged
				return
			}
		}
		if err := ctx.Err(); err != nil {
			errs[i] = err
			return
		}
		computedAfter.Add(1)
		results, err := run.QueryResults(e.Index)
		if err != nil {
			errs[i] = fmt.Errorf("judged-only scores: trial %q: %w", e.Name, err)
			return
		}
		got[i] = scoring.JudgedOnlyOf(results, judgments, sc, names)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	values := map[string]map[string]float64{}
	for i, e := range lb.Trials {
		if got[i] != nil {
			values[e.Name] = got[i]
		}
	}
	lb.SetJudgedOnly(values)
	return nil
}
