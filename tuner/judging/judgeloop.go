package judging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Judge-as-you-tune defaults and ranges.
const (
	// DefaultJudgeTarget is the Judged@K of the leading trials the loop
	// stops at; a target is in (0, 1].
	DefaultJudgeTarget = 0.9
	// DefaultJudgeLeading is how many of the best trials the loop pools
	// and measures.
	DefaultJudgeLeading = 5
	// DefaultJudgeK is the depth coverage is measured at and pools are
	// drawn from.
	DefaultJudgeK = 10
	// MaxJudgeRounds bounds the rounds (each judges at least one pair, so
	// the budget ends the loop anyway).
	MaxJudgeRounds = 100
)

// JudgeFunc judges pool pairs: it returns labels for some or all of them
// (a pair without a label stays unjudged and is not asked again).
type JudgeFunc func(ctx context.Context, pairs []pool.Pair) ([]labels.Label, error)

// JudgeLoop is judge-as-you-tune: after the sweep it pools the leading
// trials' unjudged hits, judges them, appends the labels to the store and
// scores every trial again from its recorded results (no query is sent
// again), round after round, until the leading trials' Judged@K reaches
// Target or Budget labels are spent.
type JudgeLoop struct {
	// Judge labels pairs; Name names it in the leaderboard.
	Judge JudgeFunc
	Name  string
	// Store, when set, receives every label (labels.Store.Append);
	// StoreURL, when Store is nil, names a store Run opens and closes.
	Store    *labels.Store
	StoreURL string
	// Dataset is the pairs' dataset id; RunDatasetID(run) when "".
	Dataset string
	// Budget is the most pairs the judge is asked about, >= 1;
	// RoundBudget, when > 0, the most in one round (the pool's best
	// first).
	Budget      int
	RoundBudget int
	// Target in (0, 1] (DefaultJudgeTarget when 0); Leading >= 1
	// (DefaultJudgeLeading when 0); K in 1..TopRecorded (DefaultJudgeK
	// when 0).
	Target  float64
	Leading int
	K       int
	// MaxRounds stops the loop after this many rounds (MaxJudgeRounds
	// when 0).
	MaxRounds int
	// Strategy chooses each round's pairs: decision.StrategyDepth (""
	// too) pools the leading trials' top K by priority;
	// decision.StrategyDecision the pairs whose label can change the
	// promotion decision (decision.Analyze over every trial, Baseline the
	// trial to beat: the leaderboard's when ""), and the loop stops once
	// it is settled.
	Strategy string
	Baseline string
	// MaxGrade is the scale's top grade, the decision strategy's best
	// label; when 0, the highest grade of the judgments (at least 1).
	MaxGrade int
	// Log receives one line per round.
	Log io.Writer
	// OnRound, when set, is called after each round with the trials'
	// order (names, best first) under the judgments so far.
	OnRound func(round int, order []string)
}

// Validate checks the loop's numbers.
func (l *JudgeLoop) Validate() error {
	var errs []error
	if l.Budget < 1 {
		errs = append(errs, fmt.Errorf("--judge-budget must be >= 1 (got %d)", l.Budget))
	}
	if l.Target == 0 {
		l.Target = DefaultJudgeTarget
	}
	if !(l.Target > 0 && l.Target <= 1) {
		errs = append(errs, fmt.Errorf("--judge-target must be in (0, 1] (got %g)", l.Target))
	}
	if l.Leading == 0 {
		l.Leading = DefaultJudgeLeading
	}
	if l.Leading < 1 {
		errs = append(errs, fmt.Errorf("--judge-leading must be >= 1 (got %d)", l.Leading))
	}
	if l.K == 0 {
		l.K = DefaultJudgeK
	}
	if l.K < 1 || l.K > scoring.TopRecorded {
		errs = append(errs, fmt.Errorf("judge depth must be in 1..%d (got %d)", scoring.TopRecorded, l.K))
	}
	if l.MaxRounds == 0 {
		l.MaxRounds = MaxJudgeRounds
	}
	if l.MaxRounds < 1 || l.MaxRounds > MaxJudgeRounds {
		errs = append(errs, fmt.Errorf("judge rounds must be in 1..%d (got %d)", MaxJudgeRounds, l.MaxRounds))
	}
	switch l.Strategy {
	case "", decision.StrategyDepth:
	case decision.StrategyDecision:
	default:
		errs = append(errs, fmt.Errorf("--judge-strategy must be one of %s (got %q)", strings.Join(decision.Strategies, ", "), l.Strategy))
	}
	return errors.Join(errs...)
}

// rescoredTrial is one trial's recorded results and its current scores.
type rescoredTrial struct {
	name     string
	results  []runs.QueryResult
	primary  float64
	coverage float64
}

// Run runs the loop on run's successful trials (those of lb with results
// of their own), starting from judgments, scored by sc. It returns the
// record for the leaderboard and the judgments with every new label.
func (l *JudgeLoop) Run(ctx context.Context, run *runs.Run, lb runs.Leaderboard, judgments scoring.Judgments, sc scoring.Scorer) (*runs.Rescored, scoring.Judgments, error) {
	closeStore, err := l.prepare(ctx, run)
	if err != nil {
		return nil, nil, err
	}
	defer closeStore()
	j := copyJudgments(judgments)
	if l.Baseline == "" {
		l.Baseline = lb.Baseline
	}
	if l.MaxGrade == 0 {
		l.MaxGrade = highestGrade(j)
	}
	trials, err := leaderboardTrials(run, lb)
	if err != nil {
		return nil, nil, err
	}
	rec := &runs.Rescored{Judge: l.Name, Budget: l.Budget, Target: l.Target, K: l.K, Leading: l.Leading}
	if len(trials) == 0 {
		rec.Stopped = "no trials"
		return rec, j, nil
	}
	l.score(trials, j, sc)
	rec.Before = snapshotOrder(trials)
	r := &judgeRounds{trials: trials, gold: judgments, j: j, asked: judgedPairs{}}
	for round := 1; ; round++ {
		if rec.Stopped = l.stopReason(r, round); rec.Stopped != "" {
			break
		}
		p, err := l.nextPool(r, sc)
		if err != nil {
			return nil, nil, err
		}
		if p.settled {
			rec.Stopped = "decision settled"
			break
		}
		rd, err := l.round(ctx, r, round, p, sc)
		if err != nil {
			return nil, nil, err
		}
		if rd == nil {
			rec.Stopped = "pool empty"
			break
		}
		rec.Rounds = append(rec.Rounds, *rd)
	}
	rec.After = snapshotOrder(trials)
	rec.KendallTau = runs.Round(orderTau(rec.Before, rec.After))
	return rec, j, nil
}

// prepare checks the loop, fills in its defaults and opens its label
// store from StoreURL when it has none; closeStore closes a store it
// opened (it is never nil).
func (l *JudgeLoop) prepare(ctx context.Context, run *runs.Run) (closeStore func(), err error) {
	if err := l.Validate(); err != nil {
		return nil, inputerr.Wrap(err)
	}
	if l.Log == nil {
		l.Log = io.Discard
	}
	if l.Dataset == "" {
		l.Dataset = dataset.RunDatasetID(run)
	}
	if l.Store != nil || l.StoreURL == "" {
		return func() {}, nil
	}
	st, err := labels.Open(ctx, l.StoreURL)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	l.Store = st
	return func() { st.Close(); l.Store = nil }, nil
}

// highestGrade is the highest grade of j, at least 1.
func highestGrade(j scoring.Judgments) int {
	h := 1
	for _, docs := range j {
		for _, g := range docs {
			h = max(h, g)
		}
	}
	return h
}

// copyJudgments returns a deep copy of judgments, which the loop adds
// labels to.
func copyJudgments(judgments scoring.Judgments) scoring.Judgments {
	j := make(scoring.Judgments, len(judgments))
	for q, docs := range judgments {
		j[q] = make(map[string]int, len(docs))
		for d, g := range docs {
			j[q][d] = g
		}
	}
	return j
}

// leaderboardTrials are the successful trials of lb (trials the same as
// another left out) with their recorded per-query results.
func leaderboardTrials(run *runs.Run, lb runs.Leaderboard) ([]*rescoredTrial, error) {
	var trials []*rescoredTrial
	for _, e := range lb.Trials {
		if e.Status != runs.StatusOK || e.SameAs != "" {
			continue
		}
		res, err := run.QueryResults(e.Index)
		if err != nil {
			return nil, fmt.Errorf("judge: trial %q: %w", e.Name, err)
		}
		trials = append(trials, &rescoredTrial{name: e.Name, results: res})
	}
	return trials, nil
}

// judgeRounds is the state the loop's rounds share: the trials (sorted
// best first), the golden set's judgments, the judgments so far, the
// pairs asked and how many.
type judgeRounds struct {
	trials []*rescoredTrial
	gold   scoring.Judgments
	j      scoring.Judgments
	asked  judgedPairs
	spent  int
}

// lead is the leading trials.
func (l *JudgeLoop) lead(r *judgeRounds) []*rescoredTrial {
	return r.trials[:min(l.Leading, len(r.trials))]
}

// stopReason is why the loop stops before round ("" to go on): the
// target coverage reached, the budget spent or the rounds done.
func (l *JudgeLoop) stopReason(r *judgeRounds, round int) string {
	switch {
	case l.Strategy != decision.StrategyDecision && meanCoverage(l.lead(r)) >= l.Target:
		return "target"
	case r.spent >= l.Budget:
		return "budget"
	case round > l.MaxRounds:
		return "rounds"
	}
	return ""
}

// roundPool is a round's pairs, best first; with the decision strategy,
// where the decision stands.
type roundPool struct {
	pairs    []pool.Pair
	analysis *decision.Analysis
	settled  bool
}

// nextPool pools the next round's pairs by the loop's strategy.
func (l *JudgeLoop) nextPool(r *judgeRounds, sc scoring.Scorer) (roundPool, error) {
	if l.Strategy != decision.StrategyDecision {
		p, err := l.pool(l.lead(r), r.j, r.asked)
		if err != nil {
			return roundPool{}, err
		}
		return roundPool{pairs: p.Pairs}, nil
	}
	ts := make([]decision.Trial, len(r.trials))
	for i, t := range r.trials {
		ts[i] = decision.Trial{Name: t.name, Results: t.results}
	}
	a, err := decision.Analyze(decision.Input{Trials: ts, Baseline: l.Baseline, Judgments: r.j, Skip: r.asked.has, Scorer: sc, MaxGrade: l.MaxGrade, Dataset: l.Dataset})
	if err != nil {
		return roundPool{}, fmt.Errorf("judge: %w", err)
	}
	return roundPool{pairs: a.Pairs, analysis: a, settled: a.Settled}, nil
}

// round judges as many of the pool's pairs as the budget allows, stores
// and merges the labels and rescores; nil when the pool is empty.
func (l *JudgeLoop) round(ctx context.Context, r *judgeRounds, round int, p roundPool, sc scoring.Scorer) (*runs.RescoredRound, error) {
	if len(p.pairs) == 0 {
		return nil, nil
	}
	n := l.Budget - r.spent
	if l.RoundBudget > 0 {
		n = min(n, l.RoundBudget)
	}
	take := p.pairs
	if n < len(take) {
		take = take[:n]
	}
	for _, pr := range take {
		r.asked.set(pr.Query, pr.Doc)
	}
	ls, err := l.Judge(ctx, take)
	if err != nil {
		return nil, fmt.Errorf("judge %s: round %d: %w", l.Name, round, err)
	}
	r.spent += len(take)
	if l.Store != nil && len(ls) > 0 {
		if err := l.Store.Append(ctx, ls); err != nil {
			return nil, fmt.Errorf("judge %s: round %d: store the labels: %w", l.Name, round, err)
		}
	}
	added := r.merge(ls)
	l.score(r.trials, r.j, sc)
	rd := runs.RescoredRound{Round: round, Pooled: len(p.pairs), Asked: len(take), Labels: added, Coverage: runs.Round(meanCoverage(l.lead(r))), Best: r.trials[0].name}
	if l.OnRound != nil {
		l.OnRound(round, trialNames(snapshotOrder(r.trials)))
	}
	fmt.Fprintf(l.Log, "judge %s: round %d: pooled %d pairs, asked %d, %d labels; Judged@%d of the top %d %.4f; best %s%s\n",
		l.Name, round, len(p.pairs), len(take), added, l.K, l.Leading, rd.Coverage, rd.Best, boundsNote(p.analysis))
	return &rd, nil
}

// boundsNote is where the decision stood before a round: each open
// comparison's bounds ("" without an analysis).
func boundsNote(a *decision.Analysis) string {
	if a == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range a.Comparisons {
		if !c.Holds {
			fmt.Fprintf(&b, "; vs the %s %s [%+.4f, %+.4f] before", c.Role, c.Other, c.Low, c.High)
		}
	}
	return b.String()
}

// merge adds the labels of pairs this loop asked about to the judgments
// (a gold judgment is never replaced) and returns how many it added.
func (r *judgeRounds) merge(ls []labels.Label) int {
	n := 0
	for _, lab := range ls {
		if !r.asked.has(lab.Query, lab.Doc) {
			continue // not a pair of this pool
		}
		if r.j[lab.Query] == nil {
			r.j[lab.Query] = map[string]int{}
		}
		if _, gold := r.gold[lab.Query][lab.Doc]; !gold {
			r.j[lab.Query][lab.Doc] = lab.Grade
			n++
		}
	}
	return n
}

// score scores every trial from its recorded results under j and sorts
// them best first (primary descending, ties by name).
func (l *JudgeLoop) score(trials []*rescoredTrial, j scoring.Judgments, sc scoring.Scorer) {
	for _, t := range trials {
		t.primary = scoring.ScoreRecorded(t.results, j, sc, nil).Primary
		t.coverage = Coverage(t.results, j, l.K)
	}
	slices.SortStableFunc(trials, func(a, b *rescoredTrial) int {
		return cmp.Or(cmp.Compare(b.primary, a.primary), cmp.Compare(a.name, b.name))
	})
}

// pool pools the unjudged pairs of the leading trials' top K, leaving out
// pairs asked before.
func (l *JudgeLoop) pool(lead []*rescoredTrial, j scoring.Judgments, asked judgedPairs) (*pool.Pool, error) {
	var rankings []pool.Ranking
	for _, t := range lead {
		for _, r := range t.results {
			if r.Error != "" {
				continue
			}
			docs := make([]string, len(r.Top))
			for i, d := range r.Top {
				docs[i] = d.DocID
			}
			rankings = append(rankings, pool.Ranking{Source: t.name, Query: r.QueryID, Docs: docs})
		}
	}
	judged := func(q, d string) bool {
		_, ok := j[q][d]
		return ok || asked.has(q, d)
	}
	return pool.Build(l.Dataset, rankings, judged, l.K)
}

// Coverage is a trial's Judged@k under j: the share of each query's top k
// recorded hits that is judged (divided by k, as metrics' Judged@k), mean
// over the queries that did not fail.
func Coverage(results []runs.QueryResult, j scoring.Judgments, k int) float64 {
	sum, n := 0.0, 0
	for _, r := range results {
		if r.Error != "" {
			continue
		}
		judged := 0
		for i, d := range r.Top {
			if i == k {
				break
			}
			if _, ok := j[r.QueryID][d.DocID]; ok {
				judged++
			}
		}
		sum += float64(judged) / float64(k)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func meanCoverage(ts []*rescoredTrial) float64 {
	if len(ts) == 0 {
		return 0
	}
	s := 0.0
	for _, t := range ts {
		s += t.coverage
	}
	return s / float64(len(ts))
}

func snapshotOrder(ts []*rescoredTrial) []runs.RescoredTrial {
	out := make([]runs.RescoredTrial, len(ts))
	for i, t := range ts {
		out[i] = runs.RescoredTrial{Name: t.name, Primary: runs.Round(t.primary), Coverage: runs.Round(t.coverage)}
	}
	return out
}

// orderTau is Kendall's tau-b between two orders of the same trials (0
// when undefined: fewer than two trials).
func orderTau(a, b []runs.RescoredTrial) float64 {
	return OrderTau(trialNames(a), trialNames(b))
}

// OrderTau is Kendall's tau-b between two orders (names best first) of the
// same items; 0 when undefined (fewer than two items).
func OrderTau(a, b []string) float64 {
	t := stats.KendallTau(a, b)
	if math.IsNaN(t) {
		return 0
	}
	return t
}

func trialNames(ts []runs.RescoredTrial) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}
