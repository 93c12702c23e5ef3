package tuner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// verify re-runs the best ro.Verify replayed trials live through
// per-request fusion overrides on their group's collection config, except
// the best trial, which it confirms through a real apply + restart. Each verified
// trial is re-recorded with its live results and mode "verified"; any
// per-query difference above ro.Tolerance fails the run with
// ErrReplayMismatch, naming the trial and the query.
func verify(ctx context.Context, o Options, ro ReplayOptions, groups []*replayGroup, res *Result) error {
	collectedOn := map[string]experiments.Params{} // trial name -> its group's collection params
	for _, g := range groups {
		for _, spec := range g.specs {
			collectedOn[spec.Name] = g.specs[0].Params
		}
	}
	var replayed, ok []runs.TrialRecord
	for _, t := range res.Trials {
		if t.Status != runs.StatusOK {
			continue
		}
		ok = append(ok, t)
		if t.Mode == TrialReplay {
			replayed = append(replayed, t)
		}
	}
	bestFirst(replayed)
	bestFirst(ok)
	// The winner runs live once, through apply + restart, the stronger
	// check; the other top replayed trials through overrides.
	confirmWinner := len(ok) > 0 && ok[0].Mode != TrialLive
	recorded := res.Derived
	if recorded == nil {
		recorded = NewResults(o.Run)
	}
	for _, t := range replayed[:min(ro.Verify, len(replayed))] {
		if confirmWinner && t.Name == ok[0].Name {
			continue
		}
		s, err := ro.Resolve(t.Params)
		if err != nil {
			return fmt.Errorf("verify trial %q: %w", t.Name, err)
		}
		apply := collectedOn[t.Name]
		base, err := ro.Resolve(apply)
		if err != nil {
			return fmt.Errorf("verify trial %q: %w", t.Name, err)
		}
		how := "per-request fusion override"
		if !sameMinScore(base.MinScore, s.MinScore) || base.Passage != s.Passage {
			// Not expressible as an override: run the trial's own config.
			apply, how = t.Params, "apply + restart (min_score differs from the collection config)"
		}
		override := s.Fusion
		if err := verifyLive(ctx, o, ro, res, recorded, t, apply, &override, false, how); err != nil {
			return err
		}
	}
	if !confirmWinner {
		return nil
	}
	return verifyLive(ctx, o, ro, res, recorded, ok[0], ok[0].Params, nil, true, "apply + restart (the winner)")
}

func sameMinScore(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// verifyLive applies params (restarting when the config changed, always
// when force), runs every query with the fusion override (nil: none),
// compares the live per-query results with the trial's recorded replay and
// re-records the trial as verified.
func verifyLive(ctx context.Context, o Options, ro ReplayOptions, res *Result, recorded *Results, t runs.TrialRecord, params experiments.Params, override *fusion.Params, force bool, how string) error {
	o.Progress.TrialStarted(t.Index+1, len(o.Trials), "verify "+t.Name)
	began := time.Now()
	restarted, err := applyAndStart(ctx, o.Backend, params, force)
	if restarted {
		res.Restarts++
	}
	if err != nil {
		return fmt.Errorf("verify trial %q: %w", t.Name, err)
	}
	eo := o.Eval
	eo.fusion = override
	prefix := fmt.Sprintf("%s/verify-%03d", o.Run.ID(), t.Index)
	batch, err := evaluate(ctx, o.Backend, o.Queries, o.Scorer, eo, prefix, func(n int) {
		o.Progress.QueryDone(n, len(o.Queries))
	})
	if err != nil {
		return fmt.Errorf("verify trial %q: %w", t.Name, err)
	}
	want, err := recorded.Get(t.Index)
	if err != nil {
		return fmt.Errorf("verify trial %q: %w", t.Name, err)
	}
	diffs, maxDiff := compareResults(want, batch.Results, ro.Tolerance)
	if len(diffs) > 0 {
		return fmt.Errorf("%w: trial %q (#%03d) through %s: %d of %d queries differ by more than %g; first: %s",
			ErrReplayMismatch, t.Name, t.Index, how, len(diffs), len(want), ro.Tolerance, diffs[0])
	}
	rec := trialOutcome{TrialRecord: t}
	rec.fill(o.Queries, batch)
	rec.Mode = TrialVerified
	rec.Replay = nil // the live results are stored: nothing to derive
	recStart := time.Now()
	err = o.Run.RecordTrial(rec.TrialRecord, rec.results)
	res.Recording += time.Since(recStart)
	if err != nil {
		return fmt.Errorf("record trial %q: %w", t.Name, err)
	}
	for i := range res.Trials {
		if res.Trials[i].Index == t.Index {
			res.Trials[i] = rec.TrialRecord
		}
	}
	fmt.Fprintf(ro.Log, "verified %q live through %s: %d queries equal to the replay (largest difference %g) in %s\n",
		t.Name, how, len(want), maxDiff, time.Since(began).Round(time.Millisecond))
	return nil
}

// compareResults lists the queries whose live result differs from the
// replayed one (a failed search, another routing, or a score differing by
// more than tol), each described with both values, and returns the
// largest score difference seen.
func compareResults(replayed, live []runs.QueryResult, tol float64) ([]string, float64) {
	byID := make(map[string]runs.QueryResult, len(live))
	for _, r := range live {
		byID[r.QueryID] = r
	}
	var diffs []string
	maxDiff := 0.0
	for _, want := range replayed {
		got, ok := byID[want.QueryID]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("query %q: not run live", want.QueryID))
			continue
		case (want.Error == "") != (got.Error == ""):
			diffs = append(diffs, fmt.Sprintf("query %q: replay error %q, live error %q", want.QueryID, want.Error, got.Error))
			continue
		case want.Routing != got.Routing:
			diffs = append(diffs, fmt.Sprintf("query %q: routing replay %q, live %q", want.QueryID, want.Routing, got.Routing))
			continue
		}
		var bad []string
		check := func(name string, a, b float64) {
			d := math.Abs(a - b)
			if math.IsNaN(d) {
				d = math.Inf(1)
			}
			maxDiff = max(maxDiff, d)
			if d > tol {
				bad = append(bad, fmt.Sprintf("%s replay %.12g live %.12g", name, a, b))
			}
		}
		check("primary", want.Primary, got.Primary)
		names := make([]string, 0, len(want.Scores))
		for name := range want.Scores {
			names = append(names, name)
		}
		for name := range got.Scores {
			if _, dup := want.Scores[name]; !dup {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			check(name, want.Scores[name], got.Scores[name])
		}
		if len(bad) > 0 {
			diffs = append(diffs, fmt.Sprintf("query %q: %s", want.QueryID, strings.Join(bad, ", ")))
		}
	}
	return diffs, maxDiff
}
