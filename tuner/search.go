package tuner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// Search runs a sampler study: first the experiment file's own trials
// (o.Trials, in plan order, told to the study as observations), then
// so.Trials trials proposed by the sampler, named "<sampler>-001", ….
// Each trial is applied, restarted only when needed, evaluated — rung by
// rung on growing query subsets when pruning is on — scored and recorded
// durably before the next is asked for.
//
// With o.Replay in mode replay or auto, a trial that differs from an
// earlier one only in query-time parameters (see replayable) is fused
// offline from the candidate lists collected for that earlier one, and the
// first trial of each new group collects them (one live run of the golden
// set with explain); the study is told replayed trials like live ones, and
// since replay equals live, the same seed proposes the same trials in
// either mode (without pruning: replayed trials are scored on every query
// and never pruned). After the last trial the best replayed ones are
// verified live as Sweep's are (verify). In auto mode a backend without
// candidate lists runs the remaining trials live; in replay mode the
// search fails with ErrNoCandidates.
//
// A resumed run does not redo recorded trials: with the default in-memory
// storage the study is rebuilt by asking the sampler again for each
// recorded trial (the seeded sampler proposes the same parameters, which
// is checked) and telling it the recorded outcome, so the trials that
// follow are the ones an uninterrupted run would have made.
func Search(ctx context.Context, o Options, so StudyOptions) (*Result, error) {
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	study, err := NewStudy(so)
	if err != nil {
		return nil, err
	}
	so = study.Options()
	done, err := o.Run.Trials()
	if err != nil {
		return nil, err
	}
	recorded := map[int]runs.TrialRecord{}
	for _, t := range done {
		recorded[t.Index] = t
	}
	fixed := Flatten(Plan(o.Trials))
	total := len(fixed) + so.Trials
	subsets := rungSubsets(o.Queries, so.Seed, so.Pruning)
	sampler := so.Sampler
	if sampler == "" {
		sampler = DefaultSampler
	}

	var sr *searchReplay
	if replaying(o) {
		if sr, err = newSearchReplay(o, fixed, so.Corners()); err != nil {
			return nil, err
		}
	}

	res := &Result{}
	if sr != nil {
		res.Derived = sr.derived
	}
	tl := newTally(o.FailureBudget)
	for i := 0; i < total; i++ {
		var (
			spec     experiments.TrialSpec
			p        Proposal
			err      error
			isSample = i >= len(fixed)
		)
		if isSample {
			p, err = study.Ask()
			spec = experiments.TrialSpec{Name: fmt.Sprintf("%s-%03d", sampler, i-len(fixed)+1), Params: p.Params, Origin: sampler}
		} else {
			spec = fixed[i]
			p, err = study.AskFixed(spec.Params)
		}
		if err != nil {
			return res, err
		}
		var (
			sg       *studyGroup
			settings FusionSettings
			serr     error
		)
		if sr != nil {
			sg, settings, serr = sr.join(spec)
		}
		if rec, ok := recorded[i]; ok {
			if rec.Name != spec.Name || experiments.Params(rec.Params).String() != spec.Params.String() {
				return res, fmt.Errorf("resume: trial %d was %s {%s} but is now %s {%s}: the study cannot be replayed (was the sampler or experiment file changed?)",
					i, rec.Name, experiments.Params(rec.Params).String(), spec.Name, spec.Params.String())
			}
			if err := study.Replay(p, rec); err != nil {
				return res, err
			}
			res.Trials = append(res.Trials, rec)
			res.Skipped++
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		o.Progress.TrialStarted(i+1, total, spec.Name)
		var (
			out      trialOutcome
			restarts int
			replayed bool
		)
		if sr != nil && !sr.live {
			// Replayed trials are cheap: never pruned, scored on every query.
			out, restarts, replayed, err = sr.trial(ctx, sg, i, spec, settings, serr)
			res.Restarts += restarts
			if err != nil {
				return res, err // interrupted (a resume redoes it), or ErrNoCandidates
			}
		}
		if !replayed {
			out, restarts, err = runStaged(ctx, o, i, spec, study, p, subsets, isSample)
			res.Restarts += restarts
			var se *studyError
			if errors.As(err, &se) {
				return res, se.err
			}
			if err != nil && ctx.Err() != nil {
				return res, ctx.Err() // not recorded: a resume redoes it
			}
		}
		if isSample {
			out.Sampler = sampler
		}
		recStart := time.Now()
		err = o.Run.RecordTrial(out.TrialRecord, out.results)
		res.Recording += time.Since(recStart)
		if err != nil {
			return res, fmt.Errorf("record trial %q: %w", spec.Name, err)
		}
		if err := study.Tell(p, out.TrialRecord); err != nil {
			return res, err
		}
		res.Trials = append(res.Trials, out.TrialRecord)
		eta, budgetErr := tl.done(out.TrialRecord, total-i-1)
		o.Progress.TrialDone(i+1, total, out.TrialRecord, eta)
		if budgetErr != nil {
			return res, budgetErr
		}
	}
	if sr != nil {
		if err := verify(ctx, o, sr.ro, sr.verifyGroups(), res); err != nil {
			return res, err
		}
	}
	return res, nil
}
