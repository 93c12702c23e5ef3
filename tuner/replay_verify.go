package tuner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
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
	recorded := resultsOf(o.Run)
	// Trials verified through overrides on the same configuration at the
	// same depth share one pass: the backend retrieves once per query and
	// fuses every trial's override (fusion variants), when it can.
	var passes []*overridePass
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
		if !sameMinScore(base.MinScore, s.MinScore) || !maps.Equal(base.Floors, s.Floors) || base.Passage != s.Passage {
			// Not expressible as an override: run the trial's own config.
			passes = append(passes, &overridePass{apply: t.Params, how: "apply + restart (min_score differs from the collection config, fused or per retriever)",
				trials: []runs.TrialRecord{t}, overrides: []fusion.Params{s.Fusion}})
			continue
		}
		if s.Formula != base.Formula || s.Formula != fusion.FormulaOwn && s.Fusion.Depth != base.Fusion.Depth {
			// An external engine's depth is its own setting (Weaviate's
			// QUERY_HYBRID_MAXIMUM_RESULTS), not a per-request one.
			passes = append(passes, &overridePass{apply: t.Params, how: "apply + restart (the engine's depth differs from the collection config's)",
				trials: []runs.TrialRecord{t}, overrides: []fusion.Params{s.Fusion}})
			continue
		}
		key := apply.String() + fmt.Sprintf("|depth %d", s.Fusion.Depth)
		var p *overridePass
		for _, q := range passes {
			if q.key == key {
				p = q
			}
		}
		if p == nil {
			p = &overridePass{key: key, apply: apply, how: "per-request fusion override"}
			passes = append(passes, p)
		}
		p.trials, p.overrides = append(p.trials, t), append(p.overrides, s.Fusion)
	}
	for _, p := range passes {
		if err := p.run(ctx, o, ro, res, recorded); err != nil {
			return err
		}
	}
	if !confirmWinner {
		return nil
	}
	return verifyLive(ctx, o, ro, res, recorded, ok[0], ok[0].Params, nil, true, "apply + restart (the winner)")
}

// overridePass is a set of replayed trials verified live on one applied
// configuration, each through its fusion override.
type overridePass struct {
	key       string // configuration and depth ("": a trial of its own)
	apply     experiments.Params
	how       string
	trials    []runs.TrialRecord
	overrides []fusion.Params
}

// run verifies the pass's trials: one pass of the queries with the first
// override and the others as fusion variants of the same requests; a
// backend that answers no variants gets a pass per trial instead.
func (p *overridePass) run(ctx context.Context, o Options, ro ReplayOptions, res *Result, recorded *runResults) error {
	if len(p.trials) == 1 {
		return verifyLive(ctx, o, ro, res, recorded, p.trials[0], p.apply, &p.overrides[0], false, p.how)
	}
	began := time.Now()
	first := p.trials[0]
	o.Progress.TrialStarted(first.Index+1, len(o.Trials), fmt.Sprintf("verify %d trials", len(p.trials)))
	restarted, err := applyAndStart(ctx, o.Backend, p.apply, false)
	if restarted {
		res.Restarts++
	}
	if err != nil {
		return fmt.Errorf("verify trial %q: %w", first.Name, err)
	}
	pos := make(map[string]int, len(o.Queries))
	for i, q := range o.Queries {
		pos[q.ID] = i
	}
	var mu sync.Mutex
	answered := make([][]backend.Variant, len(o.Queries))
	eo := o.Eval
	eo.fusion, eo.variants = &p.overrides[0], p.overrides[1:]
	eo.onResponse = func(q Query, resp backend.SearchResponse) {
		mu.Lock()
		answered[pos[q.ID]] = resp.Variants
		mu.Unlock()
	}
	prefix := fmt.Sprintf("%s/verify-%03d", o.Run.ID(), first.Index)
	main, err := evaluate(ctx, o.Backend, o.Queries, o.Scorer, eo, prefix, func(n int) {
		o.Progress.QueryDone(n, len(o.Queries))
	})
	if err != nil {
		return fmt.Errorf("verify trial %q: %w", first.Name, err)
	}
	for i, r := range main.Results {
		if r.Error == "" && len(answered[i]) != len(eo.variants) {
			// No fusion variants from this backend: a pass per other trial.
			fmt.Fprintf(ro.Log, "verify: the backend answers no fusion variants: one pass per trial\n")
			if err := settleVerified(o, ro, res, recorded, first, main, p.how, began); err != nil {
				return err
			}
			for k, t := range p.trials[1:] {
				if err := verifyLive(ctx, o, ro, res, recorded, t, p.apply, &p.overrides[k+1], false, p.how); err != nil {
					return err
				}
			}
			return nil
		}
	}
	batches := []Batch{main}
	for v := range eo.variants {
		b := Batch{Results: make([]runs.QueryResult, len(o.Queries)), Failed: main.Failed}
		for i, q := range o.Queries {
			m := main.Results[i]
			if m.Error != "" {
				b.Results[i] = m
				continue
			}
			r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: m.RequestID,
				LatencyMS: m.LatencyMS, Unjudged: len(q.Judgments) == 0}
			scoreHits(&r, q, o.Scorer, answered[i][v].Hits, answered[i][v].Routing)
			b.Results[i] = r
		}
		batches = append(batches, b)
	}
	how := p.how + fmt.Sprintf(" (one pass for %d trials)", len(p.trials))
	for k, t := range p.trials {
		if err := settleVerified(o, ro, res, recorded, t, batches[k], how, began); err != nil {
			return err
		}
	}
	return nil
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
func verifyLive(ctx context.Context, o Options, ro ReplayOptions, res *Result, recorded *runResults, t runs.TrialRecord, params experiments.Params, override *fusion.Params, force bool, how string) error {
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
	return settleVerified(o, ro, res, recorded, t, batch, how, began)
}

// settleVerified compares the live per-query results of replayed trial t
// with what the replay recorded, fails with ErrReplayMismatch on any
// difference above the tolerance, and re-records t as verified.
func settleVerified(o Options, ro ReplayOptions, res *Result, recorded *runResults, t runs.TrialRecord, batch Batch, how string, began time.Time) error {
	want, err := o.Run.QueryResults(t.Index)
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
	rec.Replayed = t.Replay
	recStart := time.Now()
	err = o.Run.RecordTrial(rec.TrialRecord, rec.results)
	res.Recording += time.Since(recStart)
	if err != nil {
		return fmt.Errorf("record trial %q: %w", t.Name, err)
	}
	recorded.rerecorded(rec.TrialRecord)
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
