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

	"github.com/fusiontune/fusiontune/internal/parallel"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// verifyOptions are a sweep's options as verification reads them, with
// durable, which waits until every trial recorded before verification is
// durable (nil: they are): verification records nothing, and reads no
// replayed trial back, before it returns nil.
type verifyOptions struct {
	Options
	durable func() error
}

// verify re-runs the best ro.Verify replayed trials live and confirms the
// best trial through a real apply + restart. The winner's pass is one
// pass of the queries on its own configuration, applied and restarted:
// the winner is each request as the configuration ranks it, and every
// other verified trial of its replay group whose settings differ from
// the winner's only in per-request fusion parameters rides along as a
// fusion variant of the same requests (one live pass for them all). A
// trial that cannot ride (another replay group, min_score, floors,
// passage mode or depth differing from the winner's) is verified on its
// group's collection config through per-request overrides, or through
// its own apply + restart when not even that can express it. Each
// verified trial is re-recorded with its live results and mode
// "verified"; any per-query difference above ro.Tolerance fails the run
// with ErrReplayMismatch, naming the trial and the query.
func verify(ctx context.Context, o verifyOptions, ro ReplayOptions, groups []*replayGroup, res *Result) error {
	passes, err := planVerification(ro, groups, res.Trials)
	if err != nil {
		return err
	}
	recorded := replay.Of(o.Run)
	for _, p := range passes {
		if err := p.run(ctx, o, ro, res, recorded); err != nil {
			return err
		}
	}
	return nil
}

// planVerification is verify's passes, in the order they run: the best
// ro.Verify replayed trials of trials, each riding on the winner's pass
// where it can, else on a shared override pass of its group's collection
// config, else on its own apply + restart; the winner's pass last, so
// that the backend is left on the winner's configuration.
func planVerification(ro ReplayOptions, groups []*replayGroup, trials []runs.TrialRecord) ([]*verifyPass, error) {
	collectedOn := map[string]experiments.Params{} // trial name -> its group's collection params
	for _, g := range groups {
		for _, spec := range g.specs {
			collectedOn[spec.Name] = g.specs[0].Params
		}
	}
	ok, replayed := successful(trials)
	// The winner runs live once, through apply + restart, the stronger
	// check; the other top replayed trials through overrides, on the
	// winner's pass where they can.
	winner, won, err := winnerPass(ro, ok)
	if err != nil {
		return nil, err
	}
	var passes []*verifyPass
	for _, t := range replayed[:min(ro.Verify, len(replayed))] {
		if winner != nil && t.Name == winner.trials[0].Name {
			continue
		}
		s, err := ro.Resolve(t.Params)
		if err != nil {
			return nil, fmt.Errorf("verify trial %q: %w", t.Name, err)
		}
		if winner != nil && ridesOn(winner.trials[0], won, t, s) {
			winner.add(t, s.Fusion, "per-request fusion override on the winner's config")
			continue
		}
		if passes, err = addToPass(ro, passes, t, s, collectedOn[t.Name]); err != nil {
			return nil, err
		}
	}
	if winner != nil {
		passes = append(passes, winner)
	}
	return passes, nil
}

// addToPass adds replayed trial t (resolved to s), whose group's lists
// were collected on apply, to passes: to the override pass of that
// configuration and depth (shared by the trials that need the same one),
// or, when an override cannot express it, to a pass of its own through
// apply + restart.
func addToPass(ro ReplayOptions, passes []*verifyPass, t runs.TrialRecord, s fusion.Settings, apply experiments.Params) ([]*verifyPass, error) {
	base, err := ro.Resolve(apply)
	if err != nil {
		return nil, fmt.Errorf("verify trial %q: %w", t.Name, err)
	}
	if !sameMinScore(base.MinScore, s.MinScore) || !maps.Equal(base.Floors, s.Floors) || base.Passage != s.Passage {
		// Not expressible as an override: run the trial's own config.
		return append(passes, ownPass(t, s, "apply + restart (min_score differs from the collection config, fused or per retriever)")), nil
	}
	if !sameRerank(base.Rerank, s.Rerank) {
		// A request's fusion override does not set the rerank stage.
		return append(passes, ownPass(t, s, "apply + restart (the rerank stage differs from the collection config's)")), nil
	}
	if s.Formula != base.Formula || s.Formula != fusion.FormulaOwn && s.Fusion.Depth != base.Fusion.Depth {
		// An external engine's depth is its own setting (Weaviate's
		// QUERY_HYBRID_MAXIMUM_RESULTS), not a per-request one.
		return append(passes, ownPass(t, s, "apply + restart (the engine's depth differs from the collection config's)")), nil
	}
	// Trials verified through overrides on the same configuration at the
	// same depth share one pass: the backend retrieves once per query and
	// fuses every trial's override (fusion variants), when it can.
	key := apply.String() + fmt.Sprintf("|depth %d", s.Fusion.Depth)
	var p *verifyPass
	for _, q := range passes {
		if q.key == key {
			p = q
		}
	}
	if p == nil {
		p = &verifyPass{key: key, apply: apply, settings: s}
		passes = append(passes, p)
	}
	p.add(t, s.Fusion, "per-request fusion override")
	return passes, nil
}

// successful returns the successful trials, and those of them replayed,
// each best first.
func successful(trials []runs.TrialRecord) (ok, replayed []runs.TrialRecord) {
	for _, t := range trials {
		if t.Status != runs.StatusOK {
			continue
		}
		ok = append(ok, t)
		if t.Mode == runs.TrialReplay {
			replayed = append(replayed, t)
		}
	}
	bestFirst(replayed)
	bestFirst(ok)
	return ok, replayed
}

// winnerPass is the pass confirming the best of the successful trials ok
// (best first) through its own apply + restart, with its resolved
// settings; nil when there is none or it ran live.
func winnerPass(ro ReplayOptions, ok []runs.TrialRecord) (*verifyPass, fusion.Settings, error) {
	if len(ok) == 0 || ok[0].Mode == runs.TrialLive {
		return nil, fusion.Settings{}, nil
	}
	w := ok[0]
	won, err := ro.Resolve(w.Params)
	if err != nil {
		return nil, won, fmt.Errorf("verify trial %q: %w", w.Name, err)
	}
	return &verifyPass{apply: w.Params, settings: won, force: true, trials: []runs.TrialRecord{w},
		overrides: []*fusion.Params{nil}, hows: []string{"apply + restart (the winner)"}}, won, nil
}

// ridesOn reports whether replayed trial t (resolved to s) can be
// verified as a fusion variant of the winner w's requests on w's own
// configuration (resolved to won): t is of w's replay group (the same
// retrieval), and its settings differ from w's only in what a request's
// fusion override sets — not in min_score, the floors, passage mode,
// the fusion formula, the rerank stage or the depth (a request's variants share its
// retrieval). A winner ranked by a fusion policy takes no variants: the
// engine ranks a request with variants without its policy.
func ridesOn(w runs.TrialRecord, won fusion.Settings, t runs.TrialRecord, s fusion.Settings) bool {
	return replayKey(t.Params) == replayKey(w.Params) && won.Fusion.Policy == "" && s.Fusion.Policy == "" &&
		sameMinScore(won.MinScore, s.MinScore) && maps.Equal(won.Floors, s.Floors) && won.Passage == s.Passage &&
		won.Formula == s.Formula && won.Fusion.Depth == s.Fusion.Depth && sameRerank(won.Rerank, s.Rerank)
}

// sameRerank reports whether two rerank stages are the same (both off,
// or the same window and weight).
func sameRerank(a, b *fusion.RerankSettings) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// verifyPass is a set of replayed trials verified live on one applied
// configuration: the first through the requests' own fusion (overrides[0],
// nil: the configuration's), the others as fusion variants of the same
// requests.
type verifyPass struct {
	key       string // configuration and depth of a shared override pass ("": none)
	apply     experiments.Params
	settings  fusion.Settings // the first trial's; the others share passage mode and formula
	force     bool            // restart even when the configuration did not change
	trials    []runs.TrialRecord
	overrides []*fusion.Params
	hows      []string // how each trial is verified, for the log and errors
}

// ownPass verifies t alone through its own apply + restart, with its
// fusion as the requests' override.
func ownPass(t runs.TrialRecord, s fusion.Settings, how string) *verifyPass {
	p := &verifyPass{apply: t.Params, settings: s}
	p.add(t, s.Fusion, how)
	return p
}

// add verifies t in the pass through the fusion override f.
func (p *verifyPass) add(t runs.TrialRecord, f fusion.Params, how string) {
	p.trials, p.overrides, p.hows = append(p.trials, t), append(p.overrides, &f), append(p.hows, how)
}

// run verifies the pass's trials: one pass of the queries with the first
// trial's fusion and the others as fusion variants of the same requests;
// a backend that answers no variants gets a pass per other trial instead.
func (p *verifyPass) run(ctx context.Context, o verifyOptions, ro ReplayOptions, res *Result, recorded *replay.Results) error {
	if len(p.trials) == 1 {
		return p.verifyOne(ctx, o, ro, res, recorded, 0, p.force)
	}
	began := time.Now()
	first := p.trials[0]
	o.Progress.TrialStarted(first.Index+1, len(o.Trials), fmt.Sprintf("verify %d trials", len(p.trials)))
	replays := replaysOf(o, p.trials)
	eo, answered, scored := p.evalOptions(o)
	main, err := p.livePass(ctx, o, ro, res, first, eo, p.force)
	if err != nil {
		return err
	}
	for i, r := range main.Results {
		if r.Error == "" && len(answered[i]) != len(eo.Variants) {
			return p.passPerTrial(ctx, o, ro, res, recorded, main, replays[0], began)
		}
	}
	batches := append([]pass.Batch{main}, variantBatches(o, main, scored, len(eo.Variants))...)
	// The trials' replays are read and compared side by side, and those
	// that agree recorded in one batch.
	shared := fmt.Sprintf(" (one pass for %d trials)", len(p.trials))
	checks := make([]settlement, len(p.trials))
	parallel.For(len(p.trials), func(k int) {
		checks[k] = checkVerified(o, ro, p.trials[k], replays[k], batches[k], p.hows[k]+shared)
	})
	return settleAll(o, ro, res, recorded, checks, began)
}

// evalOptions are the evaluation options of a pass: the first trial's
// fusion as the request's own, the others' as variants, each query's
// variant answers collected into answered and scored into scored (in
// query order; scored as each answer arrives, beside the searches still
// running).
func (p *verifyPass) evalOptions(o verifyOptions) (pass.EvalOptions, [][]backend.Variant, [][]runs.QueryResult) {
	pos := make(map[string]int, len(o.Queries))
	for i, q := range o.Queries {
		pos[q.ID] = i
	}
	var mu sync.Mutex
	answered := make([][]backend.Variant, len(o.Queries))
	scored := make([][]runs.QueryResult, len(o.Queries))
	eo := o.Eval
	eo.K = verifyHits(o, p.settings)
	eo.Fusion = p.overrides[0]
	for _, v := range p.overrides[1:] {
		eo.Variants = append(eo.Variants, *v)
	}
	eo.OnResponse = func(q scoring.Query, resp backend.SearchResponse) {
		rs := make([]runs.QueryResult, len(resp.Variants))
		for v, a := range resp.Variants {
			rs[v] = runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, Unjudged: len(q.Judgments) == 0}
			scoring.ScoreHits(&rs[v], q, o.Scorer, a.Hits, a.Routing)
		}
		mu.Lock()
		answered[pos[q.ID]], scored[pos[q.ID]] = resp.Variants, rs
		mu.Unlock()
	}
	return eo, answered, scored
}

// passPerTrial settles the pass's first trial on main and verifies every
// other trial in a live pass of its own: the backend answered no fusion
// variants.
func (p *verifyPass) passPerTrial(ctx context.Context, o verifyOptions, ro ReplayOptions, res *Result, recorded *replay.Results, main pass.Batch, replay func() ([]runs.QueryResult, error), began time.Time) error {
	fmt.Fprintf(ro.Log, "verify: the backend answers no fusion variants: one pass per trial\n")
	if err := settleVerified(o, ro, res, recorded, p.trials[0], replay, main, p.hows[0], began); err != nil {
		return err
	}
	for k := 1; k < len(p.trials); k++ {
		if err := p.verifyOne(ctx, o, ro, res, recorded, k, false); err != nil {
			return err
		}
	}
	return nil
}

// variantBatches are the results of the n fusion variants answered to
// each query of the pass whose requests' own results are main, scored as
// they arrived (scored), with each request's id and latency: a query that
// failed fails in every variant.
func variantBatches(o verifyOptions, main pass.Batch, scored [][]runs.QueryResult, n int) []pass.Batch {
	out := make([]pass.Batch, n)
	for v := range out {
		b := pass.Batch{Results: make([]runs.QueryResult, len(o.Queries)), Failed: main.Failed}
		for i := range o.Queries {
			m := main.Results[i]
			if m.Error != "" {
				b.Results[i] = m
				continue
			}
			r := scored[i][v]
			r.RequestID, r.LatencyMS = m.RequestID, m.LatencyMS
			b.Results[i] = r
		}
		out[v] = b
	}
	return out
}

func sameMinScore(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// verifyOne verifies the pass's k-th trial alone: it applies the pass's
// configuration (restarting when it changed, always when force), runs
// every query with the trial's fusion override (nil: none), compares the
// live per-query results with the trial's recorded replay and re-records
// the trial as verified.
func (p *verifyPass) verifyOne(ctx context.Context, o verifyOptions, ro ReplayOptions, res *Result, recorded *replay.Results, k int, force bool) error {
	t := p.trials[k]
	o.Progress.TrialStarted(t.Index+1, len(o.Trials), "verify "+t.Name)
	began := time.Now()
	replay := replaysOf(o, []runs.TrialRecord{t})[0]
	eo := o.Eval
	eo.K = verifyHits(o, p.settings)
	eo.Fusion = p.overrides[k]
	batch, err := p.livePass(ctx, o, ro, res, t, eo, force)
	if err != nil {
		return err
	}
	return settleVerified(o, ro, res, recorded, t, replay, batch, p.hows[k], began)
}

// livePass applies the pass's configuration (restarting when it changed,
// always when force; a restart counted in res) and runs every query under
// eo, its requests named after trial t; an error names t.
func (p *verifyPass) livePass(ctx context.Context, o verifyOptions, ro ReplayOptions, res *Result, t runs.TrialRecord, eo pass.EvalOptions, force bool) (pass.Batch, error) {
	ps := pass.Pass{Queries: o.Queries, Scorer: o.Scorer, Eval: eo, Prefix: fmt.Sprintf("%s/verify-%03d", o.Run.ID(), t.Index),
		Batch: true, Log: ro.Log, Progress: func(n int) { o.Progress.QueryDone(n, len(o.Queries)) }}
	batch, restarted, err := ps.Run(ctx, o.Backend, p.apply, force)
	if restarted {
		res.Restarts++
	}
	if err != nil {
		return pass.Batch{}, fmt.Errorf("verify trial %q: %w", t.Name, err)
	}
	return batch, nil
}

// verifyHits is how many hits a verification pass under s asks for. In
// document mode under the project's formula (no fusion policy) it is
// what the scorecard and the recorded top read — the cut the replay
// scores at (replayer.cut), which changes no score and no record — and
// not a live trial's k, whose further hits nothing reads; otherwise k:
// chunks collapse into fewer documents, Weaviate's legs (so its fusion)
// go as deep as the request's limit, and a policy's arms may differ.
func verifyHits(o verifyOptions, s fusion.Settings) int {
	k := o.Eval.WithDefaults().K
	if s.Passage || s.Formula != fusion.FormulaOwn || s.Fusion.Policy != "" {
		return k
	}
	return replay.NewReplayer(o.Scorer, k).Cut(false, scoring.TopRecorded)
}

// settleVerified compares trial t's live results (batch, through how)
// with its replay (replay gives them) and, when they agree, records it as
// verified.
func settleVerified(o verifyOptions, ro ReplayOptions, res *Result, recorded *replay.Results, t runs.TrialRecord, replay func() ([]runs.QueryResult, error), batch pass.Batch, how string, began time.Time) error {
	return settleAll(o, ro, res, recorded, []settlement{checkVerified(o, ro, t, replay, batch, how)}, began)
}

// replaysOf starts reading the replayed results of trials (each derived
// from its collection) on another goroutine, beside the backend's restart
// for their live pass, and returns a function per trial giving them once
// read.
func replaysOf(o verifyOptions, trials []runs.TrialRecord) []func() ([]runs.QueryResult, error) {
	out := make([]func() ([]runs.QueryResult, error), len(trials))
	for k, t := range trials {
		out[k] = sync.OnceValues(func() ([]runs.QueryResult, error) {
			if o.durable != nil {
				// The run reads a replayed trial's record to derive it.
				if err := o.durable(); err != nil {
					return nil, err
				}
			}
			return o.Run.QueryResults(t.Index)
		})
	}
	go func() {
		for _, read := range out {
			_, _ = read()
		}
	}()
	return out
}

// settlement is a verified trial's live outcome, compared with its replay.
type settlement struct {
	rec     trialOutcome       // the trial as verified (Mode TrialVerified)
	enc     *runs.EncodedTrial // rec encoded for its record (nil: encErr)
	encErr  error
	how     string
	queries int     // the queries compared
	maxDiff float64 // the largest difference
	err     error   // a mismatch, or why the replay could not be read
}

// checkVerified compares trial t's live results (batch) with its replay
// (replay gives them).
func checkVerified(o verifyOptions, ro ReplayOptions, t runs.TrialRecord, replay func() ([]runs.QueryResult, error), batch pass.Batch, how string) settlement {
	want, err := replay()
	if err != nil {
		return settlement{err: fmt.Errorf("verify trial %q: %w", t.Name, err)}
	}
	diffs, maxDiff := compareResults(want, batch.Results, ro.Tolerance)
	if len(diffs) > 0 {
		return settlement{err: fmt.Errorf("%w: trial %q (#%03d) through %s: %d of %d queries differ by more than %g; first: %s",
			ErrReplayMismatch, t.Name, t.Index, how, len(diffs), len(want), ro.Tolerance, diffs[0])}
	}
	rec := trialOutcome{TrialRecord: t}
	rec.fill(o.Queries, batch)
	rec.Mode = runs.TrialVerified
	rec.Replay = nil // the live results are stored: nothing to derive
	rec.Replayed = t.Replay
	// Encoded here, beside the other verified trials' checks, not one
	// after another when they are recorded.
	enc, encErr := runs.EncodeTrial(rec.TrialRecord, rec.results)
	return settlement{rec: rec, enc: enc, encErr: encErr, how: how, queries: len(want), maxDiff: maxDiff}
}

// settleAll records the settled trials up to the first that failed its
// check, in one batch (one flush to disk), as verified, and returns that
// failure: the same records and error as settling them one at a time.
func settleAll(o verifyOptions, ro ReplayOptions, res *Result, recorded *replay.Results, checks []settlement, began time.Time) error {
	if o.durable != nil {
		// The replayed records a verified one replaces are durable first.
		if err := o.durable(); err != nil {
			return err
		}
	}
	ok := len(checks)
	for k, c := range checks {
		if c.err != nil {
			ok = k
			break
		}
	}
	if ok > 0 {
		recStart := time.Now()
		b := o.Run.NewTrialBatch()
		for _, c := range checks[:ok] {
			err := c.encErr
			if err == nil {
				err = b.Add(c.enc)
			}
			if err != nil {
				b.Abort()
				return fmt.Errorf("record trial %q: %w", c.rec.Name, err)
			}
		}
		err := b.Flush()
		res.Recording += time.Since(recStart)
		if err != nil {
			return fmt.Errorf("record trials %q…: %w", checks[0].rec.Name, err)
		}
	}
	for _, c := range checks[:ok] {
		recorded.Rerecorded(c.rec.TrialRecord)
		for i := range res.Trials {
			if res.Trials[i].Index == c.rec.Index {
				res.Trials[i] = c.rec.TrialRecord
			}
		}
		fmt.Fprintf(ro.Log, "verified %q live through %s: %d queries equal to the replay (largest difference %g) in %s\n",
			c.rec.Name, c.how, c.queries, c.maxDiff, time.Since(began).Round(time.Millisecond))
	}
	if ok < len(checks) {
		return checks[ok].err
	}
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
