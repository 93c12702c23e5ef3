package verdict

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// RoutingMetric names routing accuracy in gates.
const RoutingMetric = "routing"

// Gate is one quality gate, e.g. "Recall@3 >= 0.80", "routing[billing] ==
// 1.0" or "NDCG@10[paraphrase] > 0.5": a metric (a scorecard metric,
// primary or routing), optionally restricted to a category, compared with
// a number.
//
// A gate may be relative to a reference run instead ("NDCG@10 >= ref -
// 0.01"): Ref is then true and Value the offset added to the reference's
// value of the same metric and category. ResolveGates turns it into an
// absolute gate once the reference is known (tune check-quality
// --against); unresolved, it fails with a detail saying so.
type Gate struct {
	Text     string
	Metric   string
	Category string
	Op       string
	Value    float64
	Ref      bool
}

var (
	gatePattern = regexp.MustCompile(`^\s*([^\s\[\]<>=!]+)\s*(?:\[\s*([^\]]+?)\s*\])?\s*(>=|<=|==|!=|>|<)\s*(\S+|ref\s*[-+]\s*\S+)\s*$`)
	refPattern  = regexp.MustCompile(`^ref(?:\s*([-+])\s*(\S+))?$`)
)

// GateTolerance is how close a value must be to the threshold for == (and
// to count as reaching it for >= and <=): scores are rounded to 1e-12.
const GateTolerance = 1e-9

// Latency metrics of gates and score.constraints: a trial's measured
// client-side latency percentiles (milliseconds; the threshold may carry
// "ms" or "s") and throughput (queries per second at the eval
// concurrency), read from the run's latency.json (see LatencyOptions).
const (
	LatencyP50 = "latency.p50"
	LatencyP95 = "latency.p95"
	LatencyP99 = "latency.p99"
	LatencyQPS = "latency.qps"
)

func isLatencyMetric(m string) bool {
	switch m {
	case LatencyP50, LatencyP95, LatencyP99, LatencyQPS:
		return true
	}
	return false
}

// ParseGate parses "METRIC[CATEGORY] OP NUMBER" with OP one of >=, >, <=,
// <, ==, !=. METRIC is primary, routing, a metric name (NDCG@10,
// Recall@3, ...) or a latency metric (latency.p50, latency.p95,
// latency.p99 in ms, e.g. "latency.p95 <= 40ms"; latency.qps);
// [CATEGORY] is optional (not for latency).
func ParseGate(s string) (Gate, error) {
	m := gatePattern.FindStringSubmatch(s)
	if m == nil {
		return Gate{}, fmt.Errorf("gate %q: want METRIC[CATEGORY] OP NUMBER, e.g. \"Recall@3 >= 0.80\" or \"routing[billing] == 1.0\"", s)
	}
	g := Gate{Text: strings.TrimSpace(s), Metric: m[1], Category: m[2], Op: m[3]}
	if lm := strings.ToLower(g.Metric); strings.HasPrefix(lm, "latency.") {
		return parseLatencyGate(s, g, lm, m[4])
	}
	if r := refPattern.FindStringSubmatch(m[4]); r != nil {
		g.Ref = true
		if r[1] != "" {
			v, ok := plainnum.Float(r[2])
			if !ok || v < 0 {
				return Gate{}, fmt.Errorf("gate %q: offset %q is not a number >= 0 (want ref, ref - 0.01 or ref + 0.01)", s, r[2])
			}
			if r[1] == "-" {
				v = -v
			}
			g.Value = v
		}
	} else {
		v, ok := plainnum.Float(m[4])
		if !ok {
			return Gate{}, fmt.Errorf("gate %q: threshold %q is not a number (or ref, ref - 0.01)", s, m[4])
		}
		g.Value = v
	}
	switch strings.ToLower(g.Metric) {
	case analysis.PrimaryMetric, RoutingMetric:
		g.Metric = strings.ToLower(g.Metric)
	default:
		mm, err := metrics.ParseMetric(g.Metric)
		if err != nil {
			return Gate{}, fmt.Errorf("gate %q: %w", s, err)
		}
		g.Metric = mm.String()
	}
	return g, nil
}

// parseLatencyGate finishes a latency gate: a known latency metric, no
// category, and a threshold in ms ("40", "40ms", "0.04s") or, for qps, a
// plain number.
func parseLatencyGate(s string, g Gate, metric, threshold string) (Gate, error) {
	if !isLatencyMetric(metric) {
		return Gate{}, fmt.Errorf("gate %q: unknown latency metric %q (want %s, %s, %s or %s)", s, g.Metric, LatencyP50, LatencyP95, LatencyP99, LatencyQPS)
	}
	if g.Category != "" {
		return Gate{}, fmt.Errorf("gate %q: %s is measured over all queries: no [category]", s, metric)
	}
	g.Metric = metric
	num, scale := threshold, 1.0
	if metric != LatencyQPS {
		if n, ok := strings.CutSuffix(threshold, "ms"); ok {
			num = n
		} else if n, ok := strings.CutSuffix(threshold, "s"); ok {
			num, scale = n, 1000
		}
	}
	v, ok := plainnum.Float(num)
	if !ok || v < 0 {
		want := "a number of milliseconds >= 0 such as 40ms"
		if metric == LatencyQPS {
			want = "a number of queries per second >= 0"
		}
		return Gate{}, fmt.Errorf("gate %q: threshold %q: want %s", s, threshold, want)
	}
	g.Value = v * scale
	return g, nil
}

// GateMetrics lists the scorecard metrics the gates need (not primary or
// routing), so that the scorer computes them.
func GateMetrics(gates []Gate) []string {
	var out []string
	for _, g := range gates {
		if g.Metric != analysis.PrimaryMetric && g.Metric != RoutingMetric && !isLatencyMetric(g.Metric) {
			out = append(out, g.Metric)
		}
	}
	return out
}

// GateResult is one gate checked against one trial.
type GateResult struct {
	Gate Gate   `json:"-"`
	Text string `json:"gate"`
	// Value is the measured value; Measured is false when the trial has no
	// such value (Detail says why), which fails the gate.
	Value    float64 `json:"value"`
	Measured bool    `json:"measured"`
	Pass     bool    `json:"pass"`
	Detail   string  `json:"detail,omitempty"`
}

func (g Gate) holds(v float64) bool {
	switch g.Op {
	case ">=":
		return v >= g.Value-GateTolerance
	case ">":
		return v > g.Value
	case "<=":
		return v <= g.Value+GateTolerance
	case "<":
		return v < g.Value
	case "==":
		return math.Abs(v-g.Value) <= GateTolerance
	case "!=":
		return math.Abs(v-g.Value) > GateTolerance
	}
	return false
}

// CheckGates evaluates gates on the leaderboard entry e of run: overall
// values come from the entry's scorecard, per-category ones from its
// category scorecards, routing per category from the recorded queries,
// latency from the run's latency.json (the median of the finalists'
// repeats, else the trial's sweep measurement; a trial without one fails
// a latency gate).
func CheckGates(run *runs.Run, e runs.Entry, gates []Gate) ([]GateResult, error) {
	var lat *runs.Latency
	if NeedsLatency(gates) {
		l, ok, err := run.ReadLatency()
		if err != nil {
			return nil, err
		}
		if ok {
			lat = &l
		}
	}
	return CheckGatesWith(run, e, gates, lat)
}

// CheckGatesWith is CheckGates with the latency measurements given (nil: none).
func CheckGatesWith(run *runs.Run, e runs.Entry, gates []Gate, lat *runs.Latency) ([]GateResult, error) {
	var results []runs.QueryResult
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		r := GateResult{Gate: g, Text: g.Text}
		var ok bool
		switch {
		case g.Ref:
			r.Detail = "relative to a reference run: give one with tune check-quality --against RUN|latest-on-branch|FILE"
		case e.Status != runs.StatusOK:
			r.Detail = fmt.Sprintf("trial %q did not succeed (%s)", e.Name, e.Status)
		case isLatencyMetric(g.Metric):
			r.Value, ok, r.Detail = latencyValue(lat, e.Name, g.Metric)
		case g.Metric == RoutingMetric && g.Category == "":
			if e.Routing != nil {
				r.Value, ok = *e.Routing, true
			} else {
				r.Detail = "no query declares an expected routing"
			}
		case g.Metric == RoutingMetric:
			if results == nil {
				var err error
				replay.Of(run) // a run without a Deriver gets one
				if results, err = run.QueryResults(e.Index); err != nil {
					return nil, err
				}
			}
			r.Value, ok = routingAccuracy(results, g.Category)
			if !ok {
				r.Detail = fmt.Sprintf("no query of category %q declares an expected routing", g.Category)
			}
		case g.Category == "":
			if g.Metric == analysis.PrimaryMetric {
				r.Value, ok = e.Primary, true
			} else if r.Value, ok = e.Scorecard[g.Metric]; !ok {
				r.Detail = fmt.Sprintf("%s was not measured in this run (add it to score.metrics)", g.Metric)
			}
		default:
			cat, found := e.Categories[g.Category]
			if !found {
				r.Detail = fmt.Sprintf("no category %q in this run", g.Category)
			} else if r.Value, ok = cat[g.Metric]; !ok {
				r.Detail = fmt.Sprintf("%s was not measured in this run (add it to score.metrics)", g.Metric)
			}
		}
		r.Measured = ok
		r.Pass = ok && g.holds(r.Value)
		out = append(out, r)
	}
	return out, nil
}

// latencyValue reads metric for trial name from the measurements.
func latencyValue(lat *runs.Latency, name, metric string) (float64, bool, string) {
	const hint = "its latency was not measured (replayed trials send no query of their own: raise latency.finalists to measure the best trials live)"
	if lat == nil {
		return 0, false, "the run measured no latency: " + hint
	}
	t, found := lat.Find(name)
	if !found {
		return 0, false, hint
	}
	s, _, ok := t.Effective()
	if !ok {
		return 0, false, hint
	}
	switch metric {
	case LatencyP50:
		return s.P50MS, true, ""
	case LatencyP95:
		return s.P95MS, true, ""
	case LatencyP99:
		return s.P99MS, true, ""
	}
	if s.QPS == 0 {
		return 0, false, "throughput is measured by the finalists' repeats only (latency.finalists)"
	}
	return s.QPS, true, ""
}

// routingAccuracy is the share of the category's queries with an expected
// routing whose routing matched.
func routingAccuracy(results []runs.QueryResult, category string) (float64, bool) {
	n, hit := 0, 0
	for _, r := range results {
		if r.Category != category || r.Expected == "" {
			continue
		}
		n++
		if r.Error == "" && r.Routing == r.Expected {
			hit++
		}
	}
	if n == 0 {
		return 0, false
	}
	return float64(hit) / float64(n), true
}

// ResolveGates turns relative gates into absolute ones on the
// reference's values (value(metric, category)): "NDCG@10 >= ref - 0.01"
// with a reference NDCG@10 of 0.6523 becomes "NDCG@10 >= 0.6423", its text
// keeping both. A reference without the metric is an error naming the
// gate.
func ResolveGates(gates []Gate, value func(metric, category string) (float64, bool)) ([]Gate, error) {
	out := make([]Gate, len(gates))
	for i, g := range gates {
		out[i] = g
		if !g.Ref {
			continue
		}
		v, ok := value(g.Metric, g.Category)
		if !ok {
			where := ""
			if g.Category != "" {
				where = " in category " + g.Category
			}
			return nil, fmt.Errorf("gate %q: the reference has no %s%s", g.Text, g.Metric, where)
		}
		out[i].Ref = false
		out[i].Value = v + g.Value
		out[i].Text = fmt.Sprintf("%s (ref %.4f: %s %.4f)", g.Text, v, g.Op, out[i].Value)
	}
	return out, nil
}

// FailedGates returns the results that did not pass.
func FailedGates(rs []GateResult) []GateResult {
	var out []GateResult
	for _, r := range rs {
		if !r.Pass {
			out = append(out, r)
		}
	}
	return out
}

// String renders a result as "PASS Recall@3 >= 0.80 (0.8512)".
func (r GateResult) String() string { return r.GateCheck().String() }

// GateCheck is r as the run records it.
func (r GateResult) GateCheck() runs.GateCheck {
	return runs.GateCheck{Gate: r.Text, Value: r.Value, Measured: r.Measured, Pass: r.Pass, Detail: r.Detail}
}

// RecordGates writes the results of the gates checked on entry e to the
// run directory (gates.json, atomically), where `tune runs` and the report
// find them.
func RecordGates(run *runs.Run, e runs.Entry, results []GateResult) error {
	g := runs.Gates{Trial: e.Name, Index: e.Index, Pass: true, Results: make([]runs.GateCheck, len(results))}
	for i, r := range results {
		g.Results[i] = r.GateCheck()
		g.Pass = g.Pass && r.Pass
	}
	return run.WriteGates(g)
}
