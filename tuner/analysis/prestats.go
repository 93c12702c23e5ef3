package analysis

import (
	"bytes"
	"context"
	"maps"
	"math"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Prestats computes, while the trials still run, the statistics of each
// recorded trial that do not depend on which trial wins: its per-category
// bootstrap intervals and its paired test against the baseline on every
// compared metric (the family correction, the decision and the power
// analysis wait for the last trial). A live trial's are computed while
// the next trial applies its config and restarts the backend; replayed
// trials', while the best of them are verified live. Significance takes a
// precomputed result only when its inputs (the paired scores, the
// category values, the seed and thresholds) are those it would compute
// with, so the leaderboard is the same byte for byte.
type Prestats struct {
	ctx context.Context
	o   StatsOptions
	tr  *trialResults
	sem chan struct{} // bounds the concurrent computations
	wg  sync.WaitGroup
	// reserved are the slots of sem held back while the trials run
	// (sem's capacity is every core): widen frees them.
	reserved atomic.Int64

	mu        sync.Mutex
	base      *runs.TrialRecord // the baseline, once recorded
	ok        []runs.TrialRecord
	seen      map[int]bool
	recs      map[int]runs.TrialRecord // the record each trial was added with
	intervals map[int]preIntervals
	paired    map[pairKey]prePaired
	memo      statsMemo // the tests and intervals of identical inputs, once

	// With judgments (see withFacts), each trial's result key (resultKey)
	// and judged-only values (SetJudgedOnly) too: they read the trial's
	// results with their hits; a replayed trial's are made with its scores
	// in its replay (offer), else in one derivation of them (results).
	judgments  scoring.Judgments
	scorer     scoring.Scorer
	judgedOnly []string // JudgedOnlyMetrics of scorer's
	facts      map[int]resultFacts
	// offered are replayed trials' facts made in their replay's fusion
	// (offer), by trial index, for results to take once.
	offered map[int]offeredFacts
}

// offeredFacts are a replayed trial's facts as its replay made them, for
// the record they were made under.
type offeredFacts struct {
	rec   runs.TrialRecord
	facts replay.Facts
}

// resultFacts are what the leaderboard needs of a trial's results with
// their hits, for the record they were read under.
type resultFacts struct {
	rec    runs.TrialRecord
	key    string
	judged map[string]float64 // nil: no judged-only metrics
	// noScores: the results p holds of the trial carry the primary
	// score only (no Scores), all p's comparisons read.
	noScores bool
}

type pairKey struct {
	trial, ref int
	metric     string
}

type prePaired struct {
	x, y []float64
	seed int64
	p    stats.Paired
}

type preIntervals struct {
	by  map[string][]float64
	out map[string]runs.Interval
}

// NewPrestats starts precomputing the statistics of run's trials under o
// (workers goroutines at once while the trials run; once the backend
// has no more live work, widen lets them use every core); ctx ends them.
func NewPrestats(ctx context.Context, run *runs.Run, o StatsOptions, workers int) *Prestats {
	workers = max(workers, 1)
	slots := max(workers, runtime.GOMAXPROCS(0))
	p := &Prestats{
		ctx: ctx, o: o.WithDefaults(), tr: newTrialResults(run), sem: make(chan struct{}, slots),
		seen: map[int]bool{}, recs: map[int]runs.TrialRecord{}, intervals: map[int]preIntervals{}, paired: map[pairKey]prePaired{},
	}
	for range slots - workers {
		p.sem <- struct{}{}
	}
	p.reserved.Store(int64(slots - workers))
	return p
}

// Widen lets the computations left run on every core: the backend is
// done with its live passes (nothing with a nil p). The results do not
// depend on how many run at once.
func (p *Prestats) Widen() {
	if p == nil {
		return
	}
	for range p.reserved.Swap(0) {
		<-p.sem
	}
}

// Add starts the statistics of recorded trial t (nothing for a failed or
// pruned one, or one added before). With a nil p it does nothing.
func (p *Prestats) Add(t runs.TrialRecord) {
	if p == nil || t.Status != runs.StatusOK {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen[t.Index] {
		return
	}
	p.seen[t.Index] = true
	p.ok = append(p.ok, t)
	p.recs[t.Index] = t
	p.start(func() { p.computeIntervals(t) })
	if p.scorer != nil {
		p.start(func() { p.computeFacts(t) })
	}
	switch {
	case t.Baseline && p.base == nil:
		p.base = &t
		for _, e := range p.ok[:len(p.ok)-1] {
			p.start(func() { p.compare(e, t) })
		}
	case p.base != nil && !t.Baseline:
		base := *p.base
		p.start(func() { p.compare(t, base) })
	}
}

func (p *Prestats) start(f func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.sem <- struct{}{}
		defer func() { <-p.sem }()
		if p.ctx.Err() == nil {
			f()
		}
	}()
}

// WithFacts makes p compute each trial's result key and judged-only
// values under judgments and sc too.
func (p *Prestats) WithFacts(judgments scoring.Judgments, sc scoring.Scorer) *Prestats {
	p.judgments, p.scorer, p.facts = judgments, sc, map[int]resultFacts{}
	p.judgedOnly, p.offered = scoring.JudgedOnlyMetrics(sc.Metrics()), map[int]offeredFacts{}
	return p
}

// FactsBuilder returns what makes, in a replayed trial's fusion of col
// under s by rp (replayTrial), the facts results would derive of it: nil
// when p computes none (nil p, or no judgments).
func (p *Prestats) FactsBuilder(col *replay.Collection, rp *replay.Replayer, s fusion.Settings) *replay.FactsBuilder {
	if p == nil || p.scorer == nil {
		return nil
	}
	return col.NewFacts(rp, s, p.judgments, p.scorer, p.judgedOnly)
}

// Offer gives p the facts of replayed trial rec made in its replay
// (FactsBuilder), so that its statistics do not fuse its collection
// again: results takes them for a record that refers to the same
// collection under the same settings and query-error policy.
func (p *Prestats) Offer(rec runs.TrialRecord, f replay.Facts) {
	p.mu.Lock()
	p.offered[rec.Index] = offeredFacts{rec: rec, facts: f}
	p.mu.Unlock()
}

// takeOffered returns, once, the facts offered for replayed trial t when
// they were made as results would derive them: of the same collection,
// settings and query-error policy.
func (p *Prestats) takeOffered(t runs.TrialRecord) (replay.Facts, bool) {
	p.mu.Lock()
	o, ok := p.offered[t.Index]
	delete(p.offered, t.Index)
	p.mu.Unlock()
	if !ok || o.rec.Replay == nil || o.rec.Replay.Collection != t.Replay.Collection ||
		!bytes.Equal(o.rec.Replay.Settings, t.Replay.Settings) || o.rec.OnQueryError != t.OnQueryError {
		return replay.Facts{}, false
	}
	return o.facts, true
}

// results returns the per-query scores of trial t, read or derived once
// however many computations ask. A replayed trial's result key and
// judged-only values (with withFacts) are made in the same derivation, or
// taken with its scores as its replay offered them; its results then
// carry the other metrics' Scores only when p compares any (o.Metrics).
func (p *Prestats) results(t runs.TrialRecord) ([]runs.QueryResult, error) {
	return p.tr.getWith(t.Index, func() ([]runs.QueryResult, error) {
		if t.Replay == nil || p.scorer == nil {
			return p.tr.run.QueryScores(t.Index)
		}
		rf, ok := p.takeOffered(t)
		if !ok {
			var err error
			if rf, err = replay.Of(p.tr.run).Facts(t, p.judgments, p.scorer, p.judgedOnly); err != nil {
				return nil, err
			}
		}
		res := rf.Results
		if len(p.o.Metrics) > 0 {
			res = rf.WithScores()
		}
		p.mu.Lock()
		p.facts[t.Index] = resultFacts{rec: t, key: rf.Key, judged: rf.Judged, noScores: len(p.o.Metrics) == 0}
		p.mu.Unlock()
		return res, nil
	})
}

func (p *Prestats) computeFacts(t runs.TrialRecord) {
	if t.Replay != nil { // made with its scores
		_, _ = p.results(t)
		return
	}
	res, err := p.tr.run.QueryResults(t.Index)
	if err != nil {
		return
	}
	f := resultFacts{rec: t, key: ResultKey(res)}
	if names := scoring.JudgedOnlyMetrics(p.scorer.Metrics()); len(names) > 0 {
		f.judged = scoring.JudgedOnlyOf(res, p.judgments, p.scorer, names)
	}
	p.mu.Lock()
	p.facts[t.Index] = f
	p.mu.Unlock()
}

// factsFor returns the precomputed facts of trial rec when they were made
// under the same record (a replayed trial verified live since has another,
// and its results are read again).
func (p *Prestats) factsFor(rec runs.TrialRecord) (resultFacts, bool) {
	if p == nil || p.facts == nil {
		return resultFacts{}, false
	}
	p.mu.Lock()
	f, ok := p.facts[rec.Index]
	p.mu.Unlock()
	if !ok || !reflect.DeepEqual(f.rec, rec) {
		return resultFacts{}, false
	}
	return f, true
}

// seed gives tr the per-query scores p read of every trial whose record
// is still the one p read them under (records by index): a replayed
// trial's are not derived again. With metrics (compared besides the
// primary score) it leaves out the results p holds without Scores.
func (p *Prestats) seed(tr *trialResults, records map[int]runs.TrialRecord, metrics []string) {
	if p == nil || p.tr.run != tr.run {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tr.mu.Lock()
	defer p.tr.mu.Unlock()
	for i, res := range p.tr.cache {
		if len(metrics) > 0 && p.facts[i].noScores {
			continue
		}
		if rec, ok := records[i]; ok && reflect.DeepEqual(rec, p.recs[i]) {
			tr.cache[i] = res
		}
	}
}

// Wait waits for the computations started, on every core (nothing
// with a nil p).
func (p *Prestats) Wait() {
	if p != nil {
		p.Widen()
		p.wg.Wait()
	}
}

func (p *Prestats) computeIntervals(t runs.TrialRecord) {
	res, err := p.results(t)
	if err != nil {
		return
	}
	by := categoryValues(res)
	v, err := p.memo.do(categoriesKey(by), func() (any, error) { return intervalsOf(p.ctx, by, p.o) })
	if err != nil {
		return
	}
	out := maps.Clone(v.(map[string]runs.Interval)) // each trial's own map
	p.mu.Lock()
	p.intervals[t.Index] = preIntervals{by: by, out: out}
	p.mu.Unlock()
}

func (p *Prestats) compare(t, ref runs.TrialRecord) {
	rt, err := p.results(t)
	if err != nil {
		return
	}
	rr, err := p.results(ref)
	if err != nil {
		return
	}
	for _, metric := range append([]string{PrimaryMetric}, p.o.Metrics...) {
		x, y, _, err := PairScores(rt, rr, metric, t.Name, ref.Name)
		if err != nil {
			return
		}
		seed := DeriveSeed(p.o.Seed, ref.Name, metric)
		v, err := p.memo.do(memoKey("compare", seed, x, y), func() (any, error) {
			return stats.CompareContext(p.ctx, x, y, seed, p.o.Thresholds)
		})
		if err != nil {
			return
		}
		res := v.(stats.Paired)
		p.mu.Lock()
		p.paired[pairKey{t.Index, ref.Index, metric}] = prePaired{x: x, y: y, seed: seed, p: res}
		p.mu.Unlock()
	}
}

// sameOptions reports whether o computes as p's options do.
func (p *Prestats) sameOptions(o StatsOptions) bool {
	return p != nil && p.o.Seed == o.Seed && p.o.Thresholds == o.Thresholds
}

// pairedFor returns the precomputed test of trial against ref on metric
// when it was made from exactly x, y, seed under o.
func (p *Prestats) pairedFor(o StatsOptions, trial, ref int, metric string, x, y []float64, seed int64) (stats.Paired, bool) {
	if !p.sameOptions(o) {
		return stats.Paired{}, false
	}
	p.mu.Lock()
	pp, ok := p.paired[pairKey{trial, ref, metric}]
	p.mu.Unlock()
	if !ok || pp.seed != seed || !sameBits(pp.x, x) || !sameBits(pp.y, y) {
		return stats.Paired{}, false
	}
	return pp.p, true
}

// intervalsFor returns the precomputed category intervals of trial when
// they were made from exactly by under o.
func (p *Prestats) intervalsFor(o StatsOptions, trial int, by map[string][]float64) (map[string]runs.Interval, bool) {
	if !p.sameOptions(o) {
		return nil, false
	}
	p.mu.Lock()
	pi, ok := p.intervals[trial]
	p.mu.Unlock()
	if !ok || len(pi.by) != len(by) {
		return nil, false
	}
	for cat, v := range by {
		if w, ok := pi.by[cat]; !ok || !sameBits(v, w) {
			return nil, false
		}
	}
	return pi.out, true
}

// PrestatsWorkers is how many precomputations run at once while trials
// run: one, beside the backend and the trial loop.
var PrestatsWorkers = max(1, runtime.GOMAXPROCS(0)-1)

// sameBits reports whether a and b hold the same float64s bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
