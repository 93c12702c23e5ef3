package analysis

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/fusiontune/fusiontune/internal/parallel"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// PrimaryMetric names the per-query primary score in comparisons.
const PrimaryMetric = "primary"

// StatsOptions configure the statistics step.
type StatsOptions struct {
	Thresholds stats.Thresholds
	// Correction is stats.Holm (the default), stats.BH or stats.None.
	Correction string
	// Metrics are per-query metrics compared besides the primary score.
	Metrics []string
	// Seed is the run's statistics seed.
	Seed int64
}

// WithDefaults returns o with every unset value at its default.
func (o StatsOptions) WithDefaults() StatsOptions {
	if o.Correction == "" {
		o.Correction = stats.Holm
	}
	if o.Thresholds == (stats.Thresholds{}) {
		o.Thresholds = stats.DefaultThresholds()
	}
	o.Thresholds = o.Thresholds.WithDefaults()
	return o
}

// trialResults caches the per-query results of a run's trials by index.
// Derived results (of replayed trials) carry no top hits: the statistics
// read scores only. A trial's results are read (or derived) once, however
// many computations ask for them at once.
type trialResults struct {
	run     *runs.Run
	mu      sync.Mutex
	cache   map[int][]runs.QueryResult
	loading map[int]*loadingResults
	fetched atomic.Int64 // results read (or derived), not found in cache
}

// loadingResults are results being read: done closes once res and err
// are set.
type loadingResults struct {
	done chan struct{}
	res  []runs.QueryResult
	err  error
}

func newTrialResults(run *runs.Run) *trialResults {
	replay.Of(run) // a run without a Deriver gets one
	return &trialResults{run: run, cache: map[int][]runs.QueryResult{}, loading: map[int]*loadingResults{}}
}

func (tr *trialResults) get(index int) ([]runs.QueryResult, error) {
	return tr.getWith(index, func() ([]runs.QueryResult, error) { return tr.run.QueryScores(index) })
}

// getWith is get reading the results with load when they are neither
// cached nor being read.
func (tr *trialResults) getWith(index int, load func() ([]runs.QueryResult, error)) ([]runs.QueryResult, error) {
	tr.mu.Lock()
	if r, ok := tr.cache[index]; ok {
		tr.mu.Unlock()
		return r, nil
	}
	if l := tr.loading[index]; l != nil {
		tr.mu.Unlock()
		<-l.done
		return l.res, l.err
	}
	l := &loadingResults{done: make(chan struct{})}
	tr.loading[index] = l
	tr.mu.Unlock()
	tr.fetched.Add(1)
	l.res, l.err = load()
	tr.mu.Lock()
	delete(tr.loading, index)
	if l.err == nil {
		tr.cache[index] = l.res
	}
	tr.mu.Unlock()
	close(l.done)
	return l.res, l.err
}

// getAll reads the results of the given trials on every core (nil for a
// negative index).
func (tr *trialResults) getAll(indexes []int) ([][]runs.QueryResult, error) {
	out := make([][]runs.QueryResult, len(indexes))
	errs := make([]error, len(indexes))
	parallel.For(len(indexes), func(i int) {
		if indexes[i] >= 0 {
			out[i], errs[i] = tr.get(indexes[i])
		}
	})
	return out, errors.Join(errs...)
}

// metricValue reads metric from one query result.
func metricValue(r runs.QueryResult, metric string) (float64, bool) {
	if metric == PrimaryMetric {
		return r.Primary, true
	}
	v, ok := r.Scores[metric]
	return v, ok
}

// scored reports whether a query result takes part in the statistics.
// A failed query scored 0 under eval.on_query_error zero takes part.
func scored(r runs.QueryResult) bool {
	return !r.Unjudged && (r.Error == "" || r.OnError == scoring.QueryErrorZero)
}

// PairScores returns the paired values of metric for the queries scored in
// both a and b, in b's query order, with their ids.
func PairScores(a, b []runs.QueryResult, metric, nameA, nameB string) (x, y []float64, ids []string, err error) {
	byID := make(map[string]runs.QueryResult, len(a))
	for _, r := range a {
		byID[r.QueryID] = r
	}
	for _, rb := range b {
		ra, ok := byID[rb.QueryID]
		if !ok || !scored(ra) || !scored(rb) {
			continue
		}
		va, okA := metricValue(ra, metric)
		vb, okB := metricValue(rb, metric)
		if !okA || !okB {
			missing := nameA
			if okA {
				missing = nameB
			}
			return nil, nil, nil, fmt.Errorf("statistics: metric %q not recorded for trial %q (add it to score.metrics and rerun)", metric, missing)
		}
		x, y, ids = append(x, va), append(y, vb), append(ids, rb.QueryID)
	}
	return x, y, ids, nil
}

// DeriveSeed gives each kind of comparison its own reproducible stream.
// The trial is deliberately not part of it: every trial compared with the
// same reference on the same metric resamples the same queries (common
// random numbers), so identical per-query differences get identical
// intervals and p-values, and the trials' intervals are directly comparable.
func DeriveSeed(seed int64, parts ...string) int64 {
	h := fnv.New64a()
	fmt.Fprint(h, seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(h.Sum64() >> 1)
}

// CompareTrials compares every successful entry except reference against
// reference on metric, pairing their per-query scores, and corrects the
// Wilcoxon p-values across the family for multiple comparisons. It returns
// the comparisons by trial name.
func CompareTrials(run *runs.Run, entries []runs.Entry, reference runs.Entry, metric string, o StatsOptions) (map[string]*runs.Comparison, error) {
	return CompareTrialsContext(context.Background(), run, entries, reference, metric, o)
}

// CompareTrialsContext is CompareTrials that stops, within milliseconds of
// ctx being cancelled, with an error wrapping ctx's.
func CompareTrialsContext(ctx context.Context, run *runs.Run, entries []runs.Entry, reference runs.Entry, metric string, o StatsOptions) (map[string]*runs.Comparison, error) {
	o = o.WithDefaults()
	return compareTrials(ctx, newTrialResults(run), entries, reference, metric, o, nil)
}

func compareTrials(ctx context.Context, tr *trialResults, entries []runs.Entry, reference runs.Entry, metric string, o StatsOptions, pre *Prestats) (map[string]*runs.Comparison, error) {
	ref, err := tr.get(reference.Index)
	if err != nil {
		return nil, err
	}
	out := map[string]*runs.Comparison{}
	var names []string
	var pairs [][2][]float64 // trial, reference scores per compared trial
	var indexes []int
	for _, e := range entries {
		if e.Status != runs.StatusOK || e.Name == reference.Name {
			continue
		}
		res, err := tr.get(e.Index)
		if err != nil {
			return nil, err
		}
		x, y, _, err := PairScores(res, ref, metric, e.Name, reference.Name)
		if err != nil {
			return nil, err
		}
		names = append(names, e.Name)
		pairs = append(pairs, [2][]float64{x, y})
		indexes = append(indexes, e.Index)
	}
	// The tests are independent and each has its own seed: run them on
	// every core; results land by position, so the output is the same.
	seed := DeriveSeed(o.Seed, reference.Name, metric)
	results := make([]stats.Paired, len(pairs))
	errs := make([]error, len(pairs))
	parallel.For(len(pairs), func(i int) {
		if p, ok := pre.pairedFor(o, indexes[i], reference.Index, metric, pairs[i][0], pairs[i][1], seed); ok {
			results[i] = p
			return
		}
		computedAfter.Add(1)
		results[i], errs[i] = stats.CompareContext(ctx, pairs[i][0], pairs[i][1], seed, o.Thresholds)
	})
	for i := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
	}
	cs, err := Decide(results, reference.Name, metric, o)
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		out[name] = cs[i]
	}
	return out, nil
}

// Decide applies the one decision rule (stats.Decide: the paired
// randomization test, corrected over the family of results by
// o.Correction, with the interval that inverts it at the adjusted level)
// and returns one Comparison per result, in order.
func Decide(results []stats.Paired, against, metric string, o StatsOptions) ([]*runs.Comparison, error) {
	// A comparison with too few non-zero pairs cannot be significant (with
	// 5 the smallest sign-flip p is 2/32): it is reported but left out of
	// the family, so it does not cost the others power (Tarone 1990).
	var family []stats.Flips
	var at []int
	for i, p := range results {
		if p.Wilcoxon.Warning == "" {
			family = append(family, p.Flips)
			at = append(at, i)
		}
	}
	alpha := o.Thresholds.Alpha
	ds, err := stats.Decide(family, o.Correction, alpha)
	if err != nil {
		return nil, err
	}
	decided := make([]*stats.Decision, len(results))
	for k, i := range at {
		decided[i] = &ds[k]
	}
	rule := stats.Rule(o.Correction, len(family), alpha)
	out := make([]*runs.Comparison, len(results))
	for i, p := range results {
		c := &runs.Comparison{
			Against: against, Metric: metric, N: p.N, NonZero: p.Wilcoxon.N,
			Delta: runs.Round(p.Flips.Mean), P: runs.Round(p.Flips.P(0)), Correction: o.Correction, Family: len(family), Rule: rule,
			Alpha: alpha, Seed: p.Seed,
		}
		secondary(c, p)
		if d := decided[i]; d != nil {
			setDecision(c, d)
		} else { // untestable: the unadjusted interval, no decision
			lo, hi := p.Flips.Interval(alpha)
			c.Low, c.High, c.Level = runs.Round(lo), runs.Round(hi), runs.Round(1-alpha)
		}
		out[i] = c
	}
	return out, nil
}

// secondary records in c the secondary statistics of p: the bootstrap
// interval, and the Wilcoxon signed-rank test or, with too few non-zero
// pairs, its warning.
func secondary(c *runs.Comparison, p stats.Paired) {
	c.Secondary = &runs.Secondary{BootstrapLow: runs.Round(p.Delta.Low), BootstrapHigh: runs.Round(p.Delta.High), BootstrapLevel: p.Delta.Level}
	if p.Wilcoxon.Warning != "" {
		c.Warnings = append(c.Warnings, p.Wilcoxon.Warning)
		return
	}
	w, pw, pg := runs.Round(p.Wilcoxon.W), runs.Round(p.Wilcoxon.P), runs.Round(p.Wilcoxon.PGreater)
	c.Secondary.W, c.Secondary.PWilcoxon, c.Secondary.PGreater = &w, &pw, &pg
}

// setDecision records d in c: the adjusted p, the interval at the adjusted
// level (rounded for the record, but never rounded onto 0 from the side
// that excludes it) and, when significant, the mark of its direction
// ("+" or "-").
func setDecision(c *runs.Comparison, d *stats.Decision) {
	pa := runs.Round(d.PAdjusted)
	c.PAdjusted = &pa
	c.Low, c.High, c.Level = runs.Round(d.Low), runs.Round(d.High), runs.Round(d.Level)
	if c.Low == 0 && d.Low > 0 || c.High == 0 && d.High < 0 {
		c.Low, c.High = d.Low, d.High
	}
	if d.Significant {
		c.Significant = true
		c.Mark = "+"
		if d.Mean < 0 {
			c.Mark = "-"
		}
	}
}

// CategoryIntervals returns, per category, the mean per-query primary
// score of a trial's results with its bootstrap interval (or a warning when
// the category has too few queries).
func CategoryIntervals(results []runs.QueryResult, o StatsOptions) map[string]runs.Interval {
	out, _ := categoryIntervals(context.Background(), results, o)
	return out
}

// categoryIntervals is CategoryIntervals that stops with ctx's error.
func categoryIntervals(ctx context.Context, results []runs.QueryResult, o StatsOptions) (map[string]runs.Interval, error) {
	return intervalsOf(ctx, categoryValues(results), o.WithDefaults())
}

// categoryValues are the primary scores of the scored results by
// category.
func categoryValues(results []runs.QueryResult) map[string][]float64 {
	by := map[string][]float64{}
	for _, r := range results {
		if scored(r) && r.Category != "" {
			by[r.Category] = append(by[r.Category], r.Primary)
		}
	}
	return by
}

// intervalsOf returns the mean of each category's values with its
// bootstrap interval (o with its defaults).
func intervalsOf(ctx context.Context, by map[string][]float64, o StatsOptions) (map[string]runs.Interval, error) {
	if len(by) == 0 {
		return nil, nil
	}
	out := make(map[string]runs.Interval, len(by))
	for cat, v := range by {
		iv, err := stats.MeanIntervalContext(ctx, v, "category "+cat, DeriveSeed(o.Seed, "category", cat), o.Thresholds)
		if err != nil {
			return nil, err
		}
		out[cat] = runs.Interval{Mean: runs.Round(iv.Mean), Low: runs.Round(iv.Low), High: runs.Round(iv.High), N: iv.N, Warning: iv.Warning}
	}
	return out, nil
}

// Significance is the statistics step after a sweep: it compares every
// successful trial with the baseline on the per-query primary score (and
// on o.Metrics), fills each entry's Comparison, MetricComparisons and
// CategoryIntervals, records the settings and seed in lb.Stats and adds
// caveats to lb.Warnings. Without a baseline only the category intervals
// are filled. It stops with ctx's error within milliseconds of ctx being
// cancelled, however large the resampling sizes.
func Significance(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, o StatsOptions) error {
	return SignificanceFrom(ctx, run, lb, o, nil, nil)
}

// computedAfter counts the paired tests, category intervals, result keys
// and judged-only values the step after the last trial computed itself,
// and the trials' scores it read again, not taken from a Prestats (for
// the tests).
var computedAfter atomic.Int64

// ComputedAfter is how many paired tests, category intervals, result keys
// and judged-only values the steps after the trials computed themselves
// (not precomputed while the trials ran) since the process started (tests
// read it).
func ComputedAfter() int64 { return computedAfter.Load() }

// SignificanceFrom is Significance taking what pre computed while the trials
// ran (nil: nothing) where its inputs are the same, and the scores pre
// read of the trials whose records (by index) are unchanged.
func SignificanceFrom(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, o StatsOptions, pre *Prestats, records map[int]runs.TrialRecord) error {
	o = o.WithDefaults()
	tr := newTrialResults(run)
	pre.seed(tr, records, o.Metrics)
	defer func() { computedAfter.Add(tr.fetched.Load()) }()
	warn := map[string]bool{}
	for _, w := range lb.Warnings {
		warn[w] = true
	}
	addWarning := func(w string) {
		if !warn[w] {
			warn[w] = true
			lb.Warnings = append(lb.Warnings, w)
		}
	}
	indexes := make([]int, len(lb.Trials))
	for i, e := range lb.Trials {
		indexes[i] = -1
		if e.Status == runs.StatusOK {
			indexes[i] = e.Index
		}
	}
	results, err := tr.getAll(indexes)
	if err != nil {
		return err
	}
	if err := setCategoryIntervals(ctx, lb, results, o, pre); err != nil {
		return err
	}
	for i := range lb.Trials {
		e := &lb.Trials[i]
		if e.Status != runs.StatusOK {
			continue
		}
		for _, cat := range sortedKeys(e.CategoryIntervals) {
			if w := e.CategoryIntervals[cat].Warning; w != "" {
				addWarning(w)
			}
		}
	}
	lb.Stats = &runs.StatsInfo{
		Test: "paired randomization (sign-flip) test of the mean (two-sided)", Correction: o.Correction,
		Alpha: o.Thresholds.Alpha, Level: o.Thresholds.Level, Resamples: o.Thresholds.Resamples,
		Permutations: o.Thresholds.Permutations, Seed: o.Seed, MinCategoryQueries: o.Thresholds.MinIntervalN,
	}
	base, err := lb.Find(lb.Baseline)
	if lb.Baseline == "" || err != nil || base.Status != runs.StatusOK {
		addWarning("no successful baseline trial: no significance tests")
		return nil
	}
	lb.Stats.Against = base.Name
	if err := compareAll(ctx, tr, lb, base, o, pre, addWarning); err != nil {
		return err
	}
	return power(tr, lb, base, o)
}

// setCategoryIntervals sets each successful trial's per-category intervals
// (results[i] is lb.Trials[i]'s, nil for a trial that failed): the ones
// computed while the trials ran when their inputs are the same, the rest
// on every core.
func setCategoryIntervals(ctx context.Context, lb *runs.Leaderboard, results [][]runs.QueryResult, o StatsOptions, pre *Prestats) error {
	ivErrs := make([]error, len(lb.Trials))
	parallel.For(len(lb.Trials), func(i int) {
		if results[i] == nil {
			return
		}
		by := categoryValues(results[i])
		if iv, ok := pre.intervalsFor(o, lb.Trials[i].Index, by); ok {
			lb.Trials[i].CategoryIntervals = iv
			return
		}
		computedAfter.Add(1)
		lb.Trials[i].CategoryIntervals, ivErrs[i] = intervalsOf(ctx, by, o)
	})
	for _, err := range ivErrs {
		if err != nil {
			return err
		}
	}
	return nil
}

// compareAll tests every successful trial against the reference base on
// the primary score (the entries' Comparison, warnings added) and on each
// of o.Metrics (MetricComparisons).
func compareAll(ctx context.Context, tr *trialResults, lb *runs.Leaderboard, base runs.Entry, o StatsOptions, pre *Prestats, addWarning func(string)) error {
	for _, metric := range append([]string{PrimaryMetric}, o.Metrics...) {
		cmp, err := compareTrials(ctx, tr, lb.Trials, base, metric, o, pre)
		if err != nil {
			return err
		}
		for i := range lb.Trials {
			e := &lb.Trials[i]
			c, ok := cmp[e.Name]
			if !ok {
				continue
			}
			if metric == PrimaryMetric {
				e.Comparison = c
				lb.Stats.Rule = c.Rule
				for _, w := range c.Warnings {
					addWarning(fmt.Sprintf("%s vs %s: %s", e.Name, base.Name, w))
				}
			} else {
				e.MetricComparisons = append(e.MetricComparisons, *c)
			}
		}
	}
	return nil
}

// power fills lb.Power from the best trial's paired differences with the
// reference (nothing when the best trial is the reference).
func power(tr *trialResults, lb *runs.Leaderboard, base runs.Entry, o StatsOptions) error {
	best, ok := lb.Best()
	if !ok || best.Name == base.Name || best.Comparison == nil {
		return nil
	}
	rb, err := tr.get(best.Index)
	if err != nil {
		return err
	}
	rr, err := tr.get(base.Index)
	if err != nil {
		return err
	}
	x, y, _, err := PairScores(rb, rr, PrimaryMetric, best.Name, base.Name)
	if err != nil {
		return err
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	c := best.Comparison
	m := max(c.Family, 1)
	a := o.Thresholds.Alpha
	if o.Correction != stats.None {
		a /= float64(m)
	}
	sd := stats.SD(d)
	mde := stats.MDE(sd, len(d), a, stats.DefaultPower)
	lb.Power = &runs.Power{Trial: best.Name, Against: base.Name, N: len(d), SD: runs.Round(sd), Alpha: runs.Round(a), Family: m,
		Power: stats.DefaultPower, MDE: runs.Round(mde), Delta: c.Delta, Below: c.Delta < mde}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
