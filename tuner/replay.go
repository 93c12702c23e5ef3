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

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
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

// Trial modes recorded in runs.TrialRecord.Mode.
const (
	TrialLive     = "live"     // evaluated on the backend
	TrialReplay   = "replay"   // fused offline from collected candidate lists
	TrialVerified = "verified" // replayed, then re-run live with equal per-query scores
)

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
func replayAll(o Options, col *collection, batch []*trial, settings []fusion.Settings, errs []error) []trialOutcome {
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

// collection is one replay group's candidate lists, per query.
type collection struct {
	params   experiments.Params // the configuration the lists were collected on
	settings fusion.Settings    // its resolved settings
	depth    int                // candidates collected per retriever
	queries  []collected        // in query order
	qs       []scoring.Query    // each collected's query, for the summarizer
	scorer   scoring.Scorer     // scores the fused rankings
	k        int                // hits per query, as requested live
	// file is the collection's file under trials/ once stored; "" when it
	// is not (a scorer without a spec): its trials then store their
	// per-query results.
	file string
	// stored waits until file is durable and returns why it could not
	// be made so (nil when file is ""); write starts writing it in the
	// background (nil when file is ""), which stored does too.
	stored func() error
	write  func()
}

// startWrite starts writing col's file, if it has one, in the background.
func (col *collection) startWrite() {
	if col.write != nil {
		col.write()
	}
}

// collected is one query's candidate lists, prepared for fusion, or why
// they are missing.
type collected struct {
	replayQuery
	err       string
	requestID string
}

// results fuses and scores every query under s, as a live run of the
// trial records them; without hits, the top hits and labels are left
// out (the scores are the same).
//
// Failed queries are marked under policy (see markQueryErrors).
func (col *collection) results(s fusion.Settings, hits bool, policy string) []runs.QueryResult {
	rp := newReplayer(col.scorer, col.k)
	out := make([]runs.QueryResult, len(col.queries))
	for i := range col.queries {
		c := &col.queries[i]
		q := c.q
		r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: c.requestID,
			Unjudged: len(q.Judgments) == 0}
		switch {
		case c.err != "":
			r.Error = c.err
			r.Scores = map[string]float64{}
		case hits:
			rp.record(&r, &c.replayQuery, s)
		default:
			vals, primary := rp.score(&c.replayQuery, s)
			r.Primary, r.Routing = primary, rp.routing()
			r.Scores = make(map[string]float64, len(vals))
			for j, name := range rp.names {
				r.Scores[name] = vals[j]
			}
		}
		out[i] = r
	}
	scoring.MarkQueryErrors(out, policy)
	return out
}

// collectAt applies params (resolved to settings), restarts the backend
// when needed and runs every query once with explain at depth; index
// names the collection's requests, what the trials it is for (the log).
func collectAt(ctx context.Context, o Options, ro ReplayOptions, params experiments.Params, settings fusion.Settings, depth, index int, what string) (*collection, bool, error) {
	depth = legDepth(fusion.Settings{Fusion: fusion.Params{Depth: depth}, Formula: settings.Formula}, o.Eval.WithDefaults().K).Fusion.Depth
	col := &collection{params: params, settings: settings, depth: depth, queries: make([]collected, len(o.Queries)),
		qs: o.Queries, scorer: o.Scorer, k: o.Eval.WithDefaults().K}
	cr := newCollector(col, o.Queries, o.Scorer)
	eo := o.Eval
	eo.K = 1 // the hits are not used: one keeps the responses small
	eo.Explain = true
	eo.Fusion = &fusion.Params{Depth: depth}
	eo.OnResponse = cr.answered
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
		c := &col.queries[i]
		c.requestID, c.err = r.RequestID, r.Error
		if r.Error != "" {
			c.replayQuery = cr.rp.prepare(o.Queries[i], nil)
		}
	}
	if cr.missing > 0 {
		return nil, restarted, ErrNoCandidates
	}
	if ms, ok := o.Scorer.(*scoring.MetricsScorer); ok {
		// Written while the trials are replayed and the winner verified:
		// their records wait for it (trialOutcome.stored).
		if err := storeCollection(o.Run, index, col, ms.Spec(), cr.raw); err != nil {
			return nil, restarted, err
		}
	}
	fmt.Fprintf(ro.Log, "replay: collected candidate lists of %d queries at depth %d for %s in %s\n",
		len(o.Queries), depth, what, time.Since(began).Round(time.Millisecond))
	return col, restarted, nil
}

// collector prepares each query's candidate lists for fusion into a
// collection as its answer arrives (a batch streams them in while the
// backend searches the rest), and keeps them as answered for the
// collection's file.
type collector struct {
	col *collection
	rp  *replayer
	pos map[string]int // query id -> position

	mu      sync.Mutex
	raw     []map[string][]fusion.Candidate // by position
	missing int                             // answers without candidate lists
}

func newCollector(col *collection, qs []scoring.Query, sc scoring.Scorer) *collector {
	cr := &collector{col: col, rp: newReplayer(sc, 0), pos: make(map[string]int, len(qs)),
		raw: make([]map[string][]fusion.Candidate, len(qs))}
	for i, q := range qs {
		cr.pos[q.ID] = i
	}
	return cr
}

// answered takes q's answer (EvalOptions.onResponse).
func (cr *collector) answered(q scoring.Query, resp backend.SearchResponse) {
	var pl *fusion.Prepared
	if resp.Candidates != nil {
		pl = fusion.Prepare(resp.Candidates)
	}
	rq := cr.rp.prepare(q, pl)
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if pl == nil {
		cr.missing++
	}
	cr.col.queries[cr.pos[q.ID]].replayQuery = rq
	cr.raw[cr.pos[q.ID]] = resp.Candidates
}

// replayTrial fuses and scores every query of one trial from the
// collection under its resolved settings s (err: why they could not be
// resolved). colErr, when set, is why the collection failed: the trial
// fails with it, as it would have live. When the collection is stored the
// trial keeps only its summary and a reference to it (rec.Replay, no
// per-query results: see Results); otherwise its per-query results.
func replayTrial(o Options, col *collection, colErr error, index int, spec experiments.TrialSpec, s fusion.Settings, err error) trialOutcome {
	rec := trialOutcome{TrialRecord: runs.TrialRecord{
		Index: index, Name: spec.Name, Params: spec.Params, Group: spec.Params.IndexKey(),
		Baseline: spec.Baseline, Mode: TrialReplay, Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{}},
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
	if s.Fusion.Depth > col.depth {
		return fail(fmt.Errorf("replay: depth %d exceeds the collected depth %d", s.Fusion.Depth, col.depth))
	}
	var fb *factsBuilder // the statistics' facts, made in the replay's fusion
	if col.file == "" {
		batch := pass.Batch{Results: col.results(s, true, o.Eval.OnQueryError)}
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
		rec.Replay = &runs.ReplayRef{Collection: col.file, Settings: settings}
		rec.stored = col.stored
		rp := newReplayer(col.scorer, col.k)
		fb = o.pre.factsBuilder(col, rp, s)
		rec.summarizeReplay(col, s, o.Eval.OnQueryError, rp, fb)
	}
	if rec.Failed > 0 {
		first := ""
		for _, c := range col.queries {
			if c.err != "" {
				first = c.q.ID + ": " + c.err
				break
			}
		}
		rec.queryErrorsFail(o.Eval.OnQueryError, len(o.Queries), first)
	}
	if fb != nil && rec.Status == runs.StatusOK {
		o.pre.offer(rec.TrialRecord, fb.done(rec.OnQueryError))
	}
	return rec
}

// summarizeReplay fuses and scores every query of col under s with rp and
// sets rec's summary, without building per-query results: the replay's
// hot path. The summary is the one Results' per-query results give. With
// fb, each query's facts for the statistics are made in the same fusion.
func (rec *trialOutcome) summarizeReplay(col *collection, s fusion.Settings, policy string, rp *replayer, fb *factsBuilder) {
	sm := scoring.NewSummarizer(col.qs, rp.names)
	failed := 0
	var zeros []float64
	for i := range col.queries {
		c := &col.queries[i]
		if c.err != "" {
			failed++
			if fb != nil {
				fb.query(i)
			}
			switch policy {
			case scoring.QueryErrorSkip:
			case scoring.QueryErrorZero:
				if zeros == nil {
					zeros = make([]float64, len(rp.names))
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
			vals, primary = fb.query(i)
		} else {
			vals, primary = rp.score(&c.replayQuery, s)
		}
		sm.Add(i, vals, nil, primary, rp.routing() == c.q.ExpectedRouting)
	}
	sum := sm.Summary()
	rec.Primary, rec.Scorecard = sum.Primary, sum.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = sum.Categories, sum.Difficulties, sum.Routing
	rec.Queries, rec.Failed = sum.Scored, failed
}

// fill sets the per-query results of rec and the scores summarizing them.
func (rec *trialOutcome) fill(queries []scoring.Query, batch pass.Batch) {
	rec.results = batch.Results
	s := scoring.Summarize(queries, batch.Results)
	rec.Primary, rec.Scorecard = s.Primary, s.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = s.Categories, s.Difficulties, s.Routing
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
