package tuner

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
)

// resumeAnalysis finishes a resumed run left analysing (tune was killed
// after its last trial, during the statistics): it runs no trial and no
// verification again, it makes the statistics, leaderboard and report from
// the recorded trials. The backend is opened only when the run has a
// held-out split, whose estimate (the best trial on the held-out queries)
// is part of the leaderboard.
func (c Config) resumeAnalysis(ctx context.Context, run *runs.Run) (*Outcome, error) {
	recs, err := run.Trials()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.Log, "run %s: its %d trials are recorded; finishing the statistics, leaderboard and report\n", run.ID(), len(recs))
	res := &Result{Trials: recs, Skipped: len(recs)}
	hint := ""
	if c.ResumeHint != nil {
		hint = c.ResumeHint(run.ID())
	}
	started := time.Now()
	var held *runs.HeldOut
	var bs []*pass.TimedBackend
	var closeErr error
	if c.HeldOut != nil {
		ob, err := c.Backend.Open(filepath.Join(run.Dir, "backend"), c.Log)
		if err != nil {
			return nil, finishRun(ctx, run, nil, fmt.Errorf("open backend: %w", err), hint)
		}
		b := pass.NewTimedBackend(ob)
		bs = append(bs, b)
		held, err = c.heldOut(ctx, run, b)
		closeErr = b.Close()
		if err != nil {
			return nil, finishRun(ctx, run, nil, err, hint)
		}
	}
	if err := finishRun(ctx, run, res, nil, hint); err != nil {
		return nil, err
	}
	out, err := c.finish(ctx, run, held, bs, res, time.Since(started), hint)
	if err != nil {
		return out, err
	}
	fmt.Fprintf(c.Log, "%d trials (%d resumed), no trial run again; run directory %s\n", len(out.Trials), res.Skipped, run.Dir)
	c.logTimings(out.Timings)
	return out, c.verdict(out, nil, closeErr)
}
