package analysis

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// Defaults of CompareOptions.
const (
	DefaultJaccardK = 10
	DefaultChanged  = 5
)

// CompareOptions configure CompareRuns.
type CompareOptions struct {
	Stats StatsOptions
	// JaccardK is the depth of the Jaccard overlap (default 10).
	JaccardK int
	// Changed is how many most-changed queries to list (default 5).
	Changed int
	// By, when set, splits B's scores by a query attribute, with the
	// segment of every query of run A from Segment.
	By      string
	Segment func(run *runs.Run, by string) (map[string]string, error)
}

// CompareRuns compares trial eb of run b against trial ea of run a on the
// queries both recorded: paired tests on the primary score (and the
// chosen metrics), per-category deltas, ranking diffs, and the queries
// whose primary score changed most with their top 3 on each side.
func CompareRuns(a *runs.Run, ea runs.Entry, b *runs.Run, eb runs.Entry, o CompareOptions) (runs.TrialComparison, error) {
	return CompareRunsContext(context.Background(), a, ea, b, eb, o)
}

// CompareRunsContext is CompareRuns that stops, within milliseconds of ctx
// being cancelled (SIGINT, SIGTERM), with an error wrapping ctx's: its
// randomization tests and intervals may run long with the largest
// stats.permutations and stats.resamples.
func CompareRunsContext(ctx context.Context, a *runs.Run, ea runs.Entry, b *runs.Run, eb runs.Entry, o CompareOptions) (runs.TrialComparison, error) {
	o.Stats = o.Stats.WithDefaults()
	if o.JaccardK <= 0 {
		o.JaccardK = DefaultJaccardK
	}
	if o.Changed <= 0 {
		o.Changed = DefaultChanged
	}
	c := runs.TrialComparison{
		A: runs.TrialRef{Run: a.ID(), Trial: ea.Name, Primary: ea.Primary, Queries: ea.Queries},
		B: runs.TrialRef{Run: b.ID(), Trial: eb.Name, Primary: eb.Primary, Queries: eb.Queries},
	}
	for _, e := range []runs.Entry{ea, eb} {
		if e.Status != runs.StatusOK {
			return c, fmt.Errorf("compare: trial %q did not succeed (%s)", e.Name, e.Status)
		}
	}
	replay.Of(a) // runs without a Deriver get one
	replay.Of(b)
	ra, err := a.QueryResults(ea.Index)
	if err != nil {
		return c, err
	}
	rb, err := b.QueryResults(eb.Index)
	if err != nil {
		return c, err
	}
	for _, metric := range append([]string{PrimaryMetric}, o.Stats.Metrics...) {
		cmp, err := comparePair(ctx, a, ea, ra, b, eb, rb, metric, o.Stats)
		if err != nil {
			return c, err
		}
		c.Paired = append(c.Paired, *cmp)
		x, y, _, err := PairScores(rb, ra, metric, eb.Name, ea.Name)
		if err != nil {
			return c, err
		}
		c.Superiority = append(c.Superiority, superiority(x, y, metric, o.Stats.Seed, a.ID(), ea.Name, b.ID(), eb.Name))
		if bc, ok := binaryComparison(x, y, metric); ok {
			c.Binary = append(c.Binary, bc)
		}
	}
	if c.Categories, err = CategoryDeltas(ctx, ra, rb, o.Stats); err != nil {
		return c, fmt.Errorf("compare: %w", err)
	}
	if o.By != "" && o.Segment != nil {
		of, err := o.Segment(a, o.By)
		if err != nil {
			return c, fmt.Errorf("compare: --by %s: %w", o.By, err)
		}
		ref := make(map[string]float64, len(ra))
		for _, r := range ra {
			if !r.Unjudged && r.Error == "" {
				ref[r.QueryID] = r.Primary
			}
		}
		c.Segments = runs.NewSegments(o.By, of, rb, ref)
	}
	c.Diff = rankingDiff(ra, rb, o.JaccardK)
	c.Changed = changedMost(ra, rb, o.Changed)
	c.Warnings = compareWarnings(ra, rb, c.Categories)
	return c, nil
}

// comparePair is trial eb of run b against trial ea of run a on one
// metric: the pair as the run's leaderboard decided it (same family, same
// rule) when B was compared with A there; otherwise a paired test of the
// two trials' per-query scores (ra, rb), a family of one with nothing to
// correct for, seeded by both trials and the metric.
func comparePair(ctx context.Context, a *runs.Run, ea runs.Entry, ra []runs.QueryResult, b *runs.Run, eb runs.Entry, rb []runs.QueryResult, metric string, st StatsOptions) (*runs.Comparison, error) {
	if lc := leaderboardComparison(a, b, ea, eb, metric); lc != nil {
		return lc, nil
	}
	x, y, _, err := PairScores(rb, ra, metric, eb.Name, ea.Name)
	if err != nil {
		return nil, err
	}
	p, err := stats.CompareContext(ctx, x, y, DeriveSeed(st.Seed, a.ID(), ea.Name, b.ID(), eb.Name, metric), st.Thresholds)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	one := st
	one.Correction = stats.None
	cs, err := Decide([]stats.Paired{p}, ea.Name, metric, one)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// superiority is the Bayesian P(B > A) on metric from B's per-query
// values x and A's y, seeded by seed and the comparison.
func superiority(x, y []float64, metric string, seed int64, ids ...string) runs.Superiority {
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	s := DeriveSeed(seed, append(append([]string{"bayes"}, ids...), metric)...)
	return runs.Superiority{Metric: metric, P: runs.Round(stats.BayesSuperiority(d, s, stats.DefaultBayesDraws)), Draws: stats.DefaultBayesDraws, Seed: s}
}

// binaryComparison is McNemar's test of metric from B's per-query values
// x and A's y when the metric is of success type (every value 0 or 1);
// false otherwise.
func binaryComparison(x, y []float64, metric string) (runs.BinaryComparison, bool) {
	if len(x) == 0 {
		return runs.BinaryComparison{}, false
	}
	bx, by := make([]bool, len(x)), make([]bool, len(y))
	for i := range x {
		if (x[i] != 0 && x[i] != 1) || (y[i] != 0 && y[i] != 1) {
			return runs.BinaryComparison{}, false
		}
		bx[i], by[i] = x[i] == 1, y[i] == 1
	}
	b, err := stats.CompareBinary(by, bx)
	if err != nil {
		return runs.BinaryComparison{}, false
	}
	return runs.BinaryComparison{Metric: metric, BWins: b.Wins, AWins: b.Losses, Ties: b.Ties, PExact: runs.Round(b.ExactP),
		ChiSquare: runs.Round(b.ChiSquare), PChiSquare: runs.Round(b.ChiSquareP), PSuperior: runs.Round(b.PSuperior)}, true
}

// compareWarnings are a comparison's caveats: queries only one trial
// recorded (the comparison covers those both did), then each category
// delta's warning.
func compareWarnings(ra, rb []runs.QueryResult, cats []runs.CategoryDelta) []string {
	var ws []string
	if oa, ob := OnlyIn(ra, rb), OnlyIn(rb, ra); oa+ob > 0 {
		ws = append(ws, fmt.Sprintf("the trials recorded different queries (%d only in A, %d only in B): compared on the %d both recorded",
			oa, ob, len(rb)-ob))
	}
	for _, cd := range cats {
		if cd.Delta.Warning != "" {
			ws = append(ws, cd.Delta.Warning)
		}
	}
	return ws
}

// leaderboardComparison returns the comparison of eb against ea on metric
// that the leaderboard of their common run recorded, or nil.
func leaderboardComparison(a, b *runs.Run, ea, eb runs.Entry, metric string) *runs.Comparison {
	if filepath.Clean(a.Dir) != filepath.Clean(b.Dir) {
		return nil
	}
	if c := eb.Comparison; c != nil && metric == PrimaryMetric && c.Against == ea.Name && c.Metric == metric {
		return c
	}
	for i := range eb.MetricComparisons {
		if c := &eb.MetricComparisons[i]; c.Against == ea.Name && c.Metric == metric {
			return c
		}
	}
	return nil
}

// OnlyIn counts the queries of a missing from b.
func OnlyIn(a, b []runs.QueryResult) int {
	in := map[string]bool{}
	for _, r := range b {
		in[r.QueryID] = true
	}
	n := 0
	for _, r := range a {
		if !in[r.QueryID] {
			n++
		}
	}
	return n
}

// CategoryDeltas compares two trials' per-query results category by
// category on the primary score: the queries both answered, each
// category's mean delta and its bootstrap interval under o.
func CategoryDeltas(ctx context.Context, ra, rb []runs.QueryResult, o StatsOptions) ([]runs.CategoryDelta, error) {
	byID := map[string]runs.QueryResult{}
	for _, r := range ra {
		byID[r.QueryID] = r
	}
	type acc struct{ a, b, d []float64 }
	by := map[string]*acc{}
	for _, r := range rb {
		q, ok := byID[r.QueryID]
		if !ok || !scored(q) || !scored(r) || r.Category == "" {
			continue
		}
		if by[r.Category] == nil {
			by[r.Category] = &acc{}
		}
		x := by[r.Category]
		x.a, x.b, x.d = append(x.a, q.Primary), append(x.b, r.Primary), append(x.d, r.Primary-q.Primary)
	}
	var out []runs.CategoryDelta
	for _, cat := range sortedKeys(by) {
		x := by[cat]
		iv, err := stats.MeanIntervalContext(ctx, x.d, "category "+cat, DeriveSeed(o.Seed, "compare", cat), o.Thresholds)
		if err != nil {
			return nil, err
		}
		out = append(out, runs.CategoryDelta{Category: cat, N: len(x.d), A: runs.Round(stats.Mean(x.a)), B: runs.Round(stats.Mean(x.b)),
			Delta: runs.Interval{Mean: runs.Round(iv.Mean), Low: runs.Round(iv.Low), High: runs.Round(iv.High), N: iv.N, Warning: iv.Warning}})
	}
	return out, nil
}

func ids(docs []runs.RankedDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.DocID
	}
	return out
}

func rankingDiff(ra, rb []runs.QueryResult, k int) runs.RankingDiff {
	byID := map[string]runs.QueryResult{}
	for _, r := range ra {
		byID[r.QueryID] = r
	}
	d := runs.RankingDiff{JaccardK: k}
	var taus, jacs []float64
	var la, lb [][]string
	for _, r := range rb {
		q, ok := byID[r.QueryID]
		if !ok || q.Error != "" || r.Error != "" {
			continue
		}
		a, b := ids(q.Top), ids(r.Top)
		if t := stats.KendallTau(a, b); !math.IsNaN(t) {
			taus = append(taus, t)
		}
		jacs = append(jacs, stats.JaccardAt(a, b, k))
		la, lb = append(la, a), append(lb, b)
	}
	d.Queries = len(la)
	d.KendallTau = runs.Round(stats.Mean(taus))
	d.Jaccard = runs.Round(stats.Mean(jacs))
	d.Top1Changed = runs.Round(stats.Top1Changed(la, lb))
	d.Top1ChangedN = int(math.Round(d.Top1Changed * float64(d.Queries)))
	return d
}

func changedMost(ra, rb []runs.QueryResult, n int) []runs.QueryChange {
	byID := map[string]runs.QueryResult{}
	for _, r := range ra {
		byID[r.QueryID] = r
	}
	var out []runs.QueryChange
	for _, r := range rb {
		q, ok := byID[r.QueryID]
		if !ok || !scored(q) || !scored(r) || r.Primary == q.Primary {
			continue
		}
		out = append(out, runs.QueryChange{QueryID: r.QueryID, Category: r.Category, A: runs.Round(q.Primary), B: runs.Round(r.Primary),
			Delta: runs.Round(r.Primary - q.Primary), TopA: head(q.Top, 3), TopB: head(r.Top, 3)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := math.Abs(out[i].Delta), math.Abs(out[j].Delta)
		if di != dj {
			return di > dj
		}
		return out[i].QueryID < out[j].QueryID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func head(docs []runs.RankedDoc, n int) []runs.RankedDoc {
	out := make([]runs.RankedDoc, 0, n)
	for i := 0; i < len(docs) && i < n; i++ {
		d := docs[i]
		d.Score = runs.Round(d.Score)
		out = append(out, d)
	}
	return out
}
