package shadow

import (
	"fmt"
	"math"
	"slices"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

// Diff classes of one query's two lists (stats.DiffClass).
const (
	Identical = stats.DiffIdentical // the same documents in the same order
	Minor     = stats.DiffMinor     // the same documents, in another order
	Major     = stats.DiffMajor     // different documents
)

// List is one side's answer to a query.
type List struct {
	IDs       []string // best first
	LatencyMS float64  // -1 when unknown
}

// Query is one logged query with both sides' answers.
type Query struct {
	ID, Text  string
	Control   List
	Treatment List
	// Judgments grades documents for the query (nil: not judged).
	Judgments metrics.Judgments
	// Depth, when > 0 and below Options.K, is the depth this query is
	// compared at: what a logged control showed (a search that asked for
	// k = 3 is compared on its top 3, not against a treatment's top 10).
	Depth int
}

// QueryDiff is the comparison of one query's two lists.
type QueryDiff struct {
	ID          string  `json:"id"`
	Text        string  `json:"query"`
	Class       string  `json:"class"`
	Tau         float64 `json:"kendall_tau"` // NaN when undefined (fewer than two documents)
	Jaccard     float64 `json:"jaccard"`
	Top1Changed bool    `json:"top1_changed"`
	// Control and Treatment are the metric's values when judged.
	Control, Treatment *float64 `json:"-"`
	// ControlIDs and TreatmentIDs are the two top-k lists compared.
	ControlIDs, TreatmentIDs []string `json:"-"`
}

// Options configures Compare.
type Options struct {
	// K is the depth compared, [1, 1000].
	K int
	// Metric scores judged queries (e.g. NDCG@10); Grades are the
	// metrics options of the judgments' scale.
	Metric  metrics.Metric
	Grades  metrics.Options
	SPRT    stats.SPRTOptions
	Seed    int64
	Stats   stats.Thresholds
	Control string // names, for the report
	Treat   string
}

// MaxK bounds Options.K.
const MaxK = 1000

// Report is a shadow comparison's outcome.
type Report struct {
	Control, Treatment string
	K                  int
	Queries            []QueryDiff
	Counts             map[string]int // by class
	MeanTau            float64        // over queries where tau is defined
	MeanJaccard        float64
	Top1Changed        float64 // share of queries
	// Latency percentiles (ms) of each side, when measured.
	ControlLatency, TreatmentLatency *Latency
	// Metric is the judged comparison; nil when no query is judged.
	Metric *MetricDiff
}

// Latency summarises measured latencies.
type Latency struct {
	P50, P95, P99 float64
	N             int
}

// MetricDiff is the paired comparison of judged queries.
type MetricDiff struct {
	Name             string
	N                int
	Control, Treated float64 // means
	// Bootstrap is the fixed-sample paired bootstrap interval of the mean
	// delta (treatment minus control) over all judged queries.
	Bootstrap stats.Interval
	// Sequential is the SPRT over the deltas in log order.
	Sequential stats.SPRTResult
	// PSuperior is the posterior probability that the treatment's mean is
	// above the control's (stats.BayesSuperiority: the Bayesian bootstrap
	// of the deltas, stats.DefaultBayesDraws draws seeded by the seed).
	PSuperior float64
	// Binary is McNemar's test of the judged queries' outcomes when the
	// metric is of success type (every value 0 or 1, as Success@k): the
	// queries only the treatment passes against those only the control
	// passes, with stats.BetaSuperiority's P(treatment > control) under a
	// uniform Beta(1, 1) prior; nil for a graded metric.
	Binary *stats.Binary
}

// Compare diffs every query's two lists and tests the judged ones.
func Compare(qs []Query, opt Options) (*Report, error) {
	if opt.K < 1 || opt.K > MaxK {
		return nil, fmt.Errorf("shadow: k: must be in [1, %d] (got %d)", MaxK, opt.K)
	}
	r := &Report{Control: opt.Control, Treatment: opt.Treat, K: opt.K, Counts: map[string]int{Identical: 0, Minor: 0, Major: 0}}
	var tauSum, jacSum float64
	var tauN, top1 int
	var deltas, cs, ts []float64
	var cLat, tLat []float64
	for _, q := range qs {
		k := opt.K
		if q.Depth > 0 && q.Depth < k {
			k = q.Depth
		}
		a, b := top(q.Control.IDs, k), top(q.Treatment.IDs, k)
		ld := stats.DiffLists(a, b, k)
		d := QueryDiff{ID: q.ID, Text: q.Text, Class: ld.Class, Tau: ld.Tau, Jaccard: ld.Jaccard, Top1Changed: ld.Top1Changed, ControlIDs: a, TreatmentIDs: b}
		if !math.IsNaN(d.Tau) {
			tauSum += d.Tau
			tauN++
		}
		jacSum += d.Jaccard
		if d.Top1Changed {
			top1++
		}
		r.Counts[d.Class]++
		if q.Judgments != nil {
			c, t := opt.Metric.Score(a, q.Judgments, opt.Grades), opt.Metric.Score(b, q.Judgments, opt.Grades)
			d.Control, d.Treatment = &c, &t
			cs, ts, deltas = append(cs, c), append(ts, t), append(deltas, t-c)
		}
		if q.Control.LatencyMS >= 0 {
			cLat = append(cLat, q.Control.LatencyMS)
		}
		if q.Treatment.LatencyMS >= 0 {
			tLat = append(tLat, q.Treatment.LatencyMS)
		}
		r.Queries = append(r.Queries, d)
	}
	if n := len(qs); n > 0 {
		r.MeanJaccard = jacSum / float64(n)
		r.Top1Changed = float64(top1) / float64(n)
	}
	r.MeanTau = math.NaN()
	if tauN > 0 {
		r.MeanTau = tauSum / float64(tauN)
	}
	r.ControlLatency, r.TreatmentLatency = latency(cLat), latency(tLat)
	if len(deltas) > 0 {
		seq, err := stats.SPRT(deltas, opt.SPRT)
		if err != nil {
			return nil, fmt.Errorf("shadow: %w", err)
		}
		r.Metric = &MetricDiff{Name: opt.Metric.String(), N: len(deltas), Control: stats.Mean(cs), Treated: stats.Mean(ts),
			Bootstrap: stats.PairedBootstrap(deltas, opt.Seed, opt.Stats.WithDefaults()), Sequential: seq,
			PSuperior: stats.BayesSuperiority(deltas, opt.Seed, stats.DefaultBayesDraws), Binary: binary(cs, ts)}
	}
	return r, nil
}

// binary is McNemar's test of the paired values c and t when every one
// is 0 or 1 (a success-type metric), else nil.
func binary(c, t []float64) *stats.Binary {
	bc, bt := make([]bool, len(c)), make([]bool, len(t))
	for i := range c {
		if (c[i] != 0 && c[i] != 1) || (t[i] != 0 && t[i] != 1) {
			return nil
		}
		bc[i], bt[i] = c[i] == 1, t[i] == 1
	}
	b, err := stats.CompareBinary(bc, bt)
	if err != nil {
		return nil
	}
	return &b
}

func top(ids []string, k int) []string {
	if len(ids) > k {
		return ids[:k]
	}
	return ids
}

// latency returns nearest-rank percentiles of v, nil for none.
func latency(v []float64) *Latency {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(i, 0)]
	}
	return &Latency{P50: at(0.5), P95: at(0.95), P99: at(0.99), N: len(s)}
}
