package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Mode says how a sweep evaluates query-time variants.
type Mode string

// The sweep modes.
const (
	// ModeLive applies and evaluates every trial on the backend.
	ModeLive Mode = "live"
	// ModeReplay collects each retriever's candidate list once per group
	// and fuses every variant offline; it fails when the backend returns
	// no candidate lists.
	ModeReplay Mode = "replay"
	// ModeAuto replays where the backend returns candidate lists and
	// evaluates live elsewhere.
	ModeAuto Mode = "auto"
)

// Modes lists the valid sweep modes.
var Modes = []Mode{ModeLive, ModeReplay, ModeAuto}

// ParseMode checks a --mode value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("mode %q: want live, replay or auto", s)
}

// Defaults of ReplayOptions.
const (
	DefaultVerify    = 3    // replayed trials re-run live through per-request overrides
	DefaultTolerance = 1e-9 // largest allowed replay-live difference of a per-query score
	// DefaultMaxCollections bounds the collections replay keeps in memory
	// (each holds every query's candidate lists): a replay group whose
	// collection was dropped collects again when a trial returns to it.
	DefaultMaxCollections = 8
)

// ReplayOptions turn on the replay path of Sweep (nil or ModeLive keep
// every trial live).
type ReplayOptions struct {
	Mode Mode
	// Resolve returns a trial's effective query-time settings the way the
	// backend applies them (backend.FusionResolver's Fusion: for the
	// embedded engine, a typed overlay of the params on its config).
	// Required unless Mode is ModeLive.
	Resolve func(params map[string]any) (fusion.Settings, error)
	// Verify is how many of the best replayed trials are re-run live
	// through per-request fusion overrides (DefaultVerify when 0; negative:
	// none). The best trial is always confirmed through apply + restart.
	Verify int
	// Tolerance is the largest allowed difference between a replayed and a
	// live per-query score (DefaultTolerance when 0).
	Tolerance float64
	// Log receives replay progress lines (collection, verification); nil
	// discards them.
	Log io.Writer
	// MaxCollections bounds the collections kept in memory
	// (DefaultMaxCollections when 0).
	MaxCollections int
}

func (r ReplayOptions) withDefaults() ReplayOptions {
	if r.Verify == 0 {
		r.Verify = DefaultVerify
	}
	if r.Verify < 0 {
		r.Verify = 0
	}
	if r.Tolerance <= 0 {
		r.Tolerance = DefaultTolerance
	}
	if r.Log == nil {
		r.Log = io.Discard
	}
	if r.MaxCollections <= 0 {
		r.MaxCollections = DefaultMaxCollections
	}
	return r
}

// ErrNoCandidates is returned in ModeReplay when the backend answers
// without candidate lists.
var ErrNoCandidates = errors.New("backend returned no candidate lists (it does not support explain): use --mode live or auto")

// ErrReplayMismatch is returned when a replayed trial scores differently
// live.
var ErrReplayMismatch = errors.New("replay and live results differ")

// replayKey identifies the trials that can share one collection of
// candidate lists: equal parameters apart from the replayable ones.
func replayKey(p experiments.Params) string {
	rest := experiments.Params{}
	for k, v := range p {
		if !experiments.Replayable(k) {
			rest[k] = v
		}
	}
	return rest.String()
}

// replayGroup is a set of trials replayed from one collection, as verify
// reads it: the configuration the lists were collected on first.
type replayGroup struct {
	specs []experiments.TrialSpec
}

// replayAll replays the batch's trials (each resolved to
// settings[k], or why not in errs[k]) from col on every core, in batch
// order.
func replayAll(o Options, col *replay.Collection, batch []*trial, settings []fusion.Settings, errs []error) []trialOutcome {
	out := make([]trialOutcome, len(batch))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(batch)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(batch) {
					return
				}
				t := batch[k]
				rec := replayTrial(o, col, nil, t.index, t.spec, settings[k], errs[k])
				rec.batched = rec.Replay != nil
				out[k] = rec
			}
		}()
	}
	wg.Wait()
	return out
}

// collectAt applies params (resolved to settings), restarts the backend
// when needed and runs every query once with explain at depth; index
// names the collection's requests, what the trials it is for (the log).
func collectAt(ctx context.Context, o Options, ro ReplayOptions, params experiments.Params, settings fusion.Settings, depth, index int, what string) (*replay.Collection, bool, error) {
	depth = replay.LegDepth(fusion.Settings{Fusion: fusion.Params{Depth: depth}, Formula: settings.Formula}, o.Eval.WithDefaults().K).Fusion.Depth
	col := &replay.Collection{Params: params, Settings: settings, Depth: depth, Queries: make([]replay.Collected, len(o.Queries)),
		Golden: o.Queries, Scorer: o.Scorer, K: o.Eval.WithDefaults().K}
	cr := replay.NewCollector(col, o.Queries, o.Scorer)
	eo := o.Eval
	eo.K = 1 // the hits are not used: one keeps the responses small
	eo.Explain = true
	eo.Fusion = &fusion.Params{Depth: depth}
	eo.OnResponse = cr.Answered
	restarted, err := pass.Start(ctx, o.Backend, params, false)
	if err != nil {
		return nil, restarted, err
	}
	began := time.Now()
	ps := pass.Pass{Searcher: o.Backend, Queries: o.Queries, Scorer: o.Scorer, Eval: eo, Prefix: fmt.Sprintf("%s/collect-%03d", o.Run.ID(), index),
		Batch: true, Log: ro.Log, Progress: func(n int) { o.Progress.QueryDone(n, len(o.Queries)) }}
	batch, err := ps.Search(ctx)
	if err != nil {
		return nil, restarted, err
	}
	for i, r := range batch.Results {
		c := &col.Queries[i]
		c.RequestID, c.Err = r.RequestID, r.Error
		if r.Error != "" {
			c.Query = cr.Replayer.Prepare(o.Queries[i], nil)
		}
	}
	if cr.Missing > 0 {
		return nil, restarted, ErrNoCandidates
	}
	if ms, ok := o.Scorer.(*scoring.MetricsScorer); ok {
		// Written while the trials are replayed and the winner verified:
		// their records wait for it (trialOutcome.stored).
		if err := replay.Store(o.Run, index, col, ms.Spec(), cr.Raw); err != nil {
			return nil, restarted, err
		}
	}
	fmt.Fprintf(ro.Log, "replay: collected candidate lists of %d queries at depth %d for %s in %s\n",
		len(o.Queries), depth, what, time.Since(began).Round(time.Millisecond))
	return col, restarted, nil
}

// replayTrial fuses and scores every query of one trial from the
// collection under its resolved settings s (err: why they could not be
// resolved). colErr, when set, is why the collection failed: the trial
// fails with it, as it would have live. When the collection is stored the
// trial keeps only its summary and a reference to it (rec.Replay, no
// per-query results: see Results); otherwise its per-query results.
func replayTrial(o Options, col *replay.Collection, colErr error, index int, spec experiments.TrialSpec, s fusion.Settings, err error) trialOutcome {
	rec := trialOutcome{TrialRecord: runs.TrialRecord{
		Index: index, Name: spec.Name, Params: spec.Params, Group: spec.Params.IndexKey(),
		Baseline: spec.Baseline, Mode: runs.TrialReplay, Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{}},
	}}
	if o.Describe != nil {
		rec.BackendConfig = o.Describe(spec.Params)
	}
	fail := func(err error) trialOutcome {
		rec.Status = runs.StatusFailed
		rec.Error = err.Error()
		return rec
	}
	if colErr != nil {
		return fail(colErr)
	}
	if err != nil {
		return fail(err)
	}
	if s.Fusion.Depth > col.Depth {
		return fail(fmt.Errorf("replay: depth %d exceeds the collected depth %d", s.Fusion.Depth, col.Depth))
	}
	if s.Rerank != nil && !col.HasRerank() {
		return fail(errors.New("replay: the rerank stage is on but the backend answered without the reranker's scores of the candidates"))
	}
	var fb *replay.FactsBuilder // the statistics' facts, made in the replay's fusion
	if col.File == "" {
		batch := pass.Batch{Results: col.Results(s, true, o.Eval.OnQueryError)}
		for _, r := range batch.Results {
			if r.Error != "" {
				batch.Failed++
			}
		}
		rec.fill(o.Queries, batch)
	} else {
		settings, err := json.Marshal(s)
		if err != nil {
			return fail(fmt.Errorf("replay: encode the settings: %w", err))
		}
		rec.Replay = &runs.ReplayRef{Collection: col.File, Settings: settings}
		rec.stored = col.Stored
		rp := replay.NewReplayer(col.Scorer, col.K)
		fb = o.Stats.FactsBuilder(col, rp, s)
		rec.summarizeReplay(col, s, o.Eval.OnQueryError, rp, fb)
	}
	if rec.Failed > 0 {
		first := ""
		for _, c := range col.Queries {
			if c.Err != "" {
				first = c.Q.ID + ": " + c.Err
				break
			}
		}
		rec.queryErrorsFail(o.Eval.OnQueryError, len(o.Queries), first)
	}
	if fb != nil && rec.Status == runs.StatusOK {
		o.Stats.Offer(rec.TrialRecord, fb.Done(rec.OnQueryError))
	}
	return rec
}

// summarizeReplay fuses and scores every query of col under s with rp and
// sets rec's summary, without building per-query results: the replay's
// hot path. The summary is the one Results' per-query results give. With
// fb, each query's facts for the statistics are made in the same fusion.
func (rec *trialOutcome) summarizeReplay(col *replay.Collection, s fusion.Settings, policy string, rp *replay.Replayer, fb *replay.FactsBuilder) {
	sm := scoring.NewSummarizer(col.Golden, rp.Names)
	failed := 0
	var zeros []float64
	for i := range col.Queries {
		c := &col.Queries[i]
		if c.Err != "" {
			failed++
			if fb != nil {
				fb.Query(i)
			}
			switch policy {
			case scoring.QueryErrorSkip:
			case scoring.QueryErrorZero:
				if zeros == nil {
					zeros = make([]float64, len(rp.Names))
				}
				sm.Add(i, zeros, nil, 0, false)
			default:
				sm.Add(i, nil, nil, 0, false)
			}
			continue
		}
		var vals []float64
		var primary float64
		if fb != nil {
			vals, primary = fb.Query(i)
		} else {
			vals, primary = rp.Score(&c.Query, s)
		}
		sm.Add(i, vals, nil, primary, rp.Routing() == c.Q.ExpectedRouting)
		sm.AddTop(i, rp.TopGrades(&c.Query, runs.LabelDepth))
	}
	sum := sm.Summary()
	rec.Primary, rec.Scorecard = sum.Primary, sum.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = sum.Categories, sum.Difficulties, sum.Routing
	rec.Queries, rec.Failed = sum.Scored, failed
	rec.TopLabels = sm.TopLabels()
}

// fill sets the per-query results of rec and the scores summarizing them.
func (rec *trialOutcome) fill(queries []scoring.Query, batch pass.Batch) {
	rec.results = batch.Results
	s := scoring.Summarize(queries, batch.Results)
	rec.Primary, rec.Scorecard = s.Primary, s.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = s.Categories, s.Difficulties, s.Routing
	rec.TopLabels = s.TopLabels
	rec.Queries, rec.Failed = s.Scored, batch.Failed
}

// bestFirst sorts trial records the way the leaderboard ranks successful
// trials: primary score (rounded to 1e-12, as the leaderboard writes it)
// descending, ties by name.
func bestFirst(recs []runs.TrialRecord) {
	round := func(v float64) float64 { return math.Round(v*1e12) / 1e12 }
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := round(recs[i].Primary), round(recs[j].Primary)
		if a != b {
			return a > b
		}
		return recs[i].Name < recs[j].Name
	})
}
