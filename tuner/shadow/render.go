package shadow

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/table"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

// formats are the formats Render writes.
var formats = table.Formats{table.Text, table.JSON}

// Render writes the report in format: text (WriteText, with the
// DefaultWorst most-changed queries) or json (WriteJSON).
func (r *Report) Render(w io.Writer, format string) error {
	f, err := formats.Parse(format)
	if err != nil {
		return fmt.Errorf("shadow: %w", err)
	}
	text := func(w io.Writer) error { return r.WriteText(w, DefaultWorst) }
	return table.Output{Text: text, JSON: r.WriteJSON}.Write(w, f)
}

// WriteText writes the report for a terminal: the diff classes, the
// ranking agreement, latency, the judged metric with the sequential
// test's stopping point beside the fixed-sample interval, and the queries
// that changed most.
func (r *Report) WriteText(w io.Writer, worst int) error {
	n := len(r.Queries)
	t := &table.Table{Title: fmt.Sprintf("shadow: control %s -> treatment %s on %d logged queries (top %d)", r.Control, r.Treatment, n, r.K),
		Columns: table.Headers("identical", "minor (order)", "major (set)", "Kendall tau (mean)", fmt.Sprintf("Jaccard@%d (mean)", r.K), "top-1 changed")}
	t.AppendStrings(share(r.Counts[Identical], n), share(r.Counts[Minor], n), share(r.Counts[Major], n), num(r.MeanTau), num(r.MeanJaccard), fmt.Sprintf("%.1f%%", 100*r.Top1Changed))
	if err := t.Render(w, table.Text); err != nil {
		return err
	}
	if r.ControlLatency != nil || r.TreatmentLatency != nil {
		fmt.Fprintf(w, "latency (ms, one client): control %s; treatment %s\n", lat(r.ControlLatency), lat(r.TreatmentLatency))
		if r.Control == "log" {
			fmt.Fprintln(w, "  (the log's latencies are the server's own, under live traffic; a config's are measured here, in process, after a warm-up: compare with care)")
		}
	}
	if m := r.Metric; m != nil {
		b := m.Bootstrap
		fmt.Fprintf(w, "%s on %d judged queries: control %.4f, treatment %.4f, delta %+.4f, %.0f%% bootstrap interval [%+.4f, %+.4f] (fixed sample, all %d)\n",
			m.Name, m.N, m.Control, m.Treated, b.Mean, 100*b.Level, b.Low, b.High, m.N)
		fmt.Fprintf(w, "P(treatment > control) = %.4f (Bayesian bootstrap of the mean delta: Dirichlet(1, …, 1) weights on the judged queries, %d draws)\n", m.PSuperior, stats.DefaultBayesDraws)
		if b := m.Binary; b != nil {
			fmt.Fprintf(w, "McNemar (success-type %s): treatment alone passes %d, control alone %d, both or neither %d; exact p %.4f, chi-square %.3f (p %.4f); P(treatment > control) = %.4f (Beta(1, 1) prior on the discordant share)\n",
				m.Name, b.Wins, b.Losses, b.Ties, b.ExactP, b.ChiSquare, b.ChiSquareP, b.PSuperior)
		}
		s := m.Sequential
		fmt.Fprintf(w, "sequential test (SPRT, boundaries %.3f / %.3f): %s after %d of %d queries\n", s.Upper, s.Lower, s.Decision, s.N, m.N)
		writePath(w, s.Better, s.Worse)
	} else {
		fmt.Fprintln(w, "no judged query: no metric delta (judge the harvested queries, or give --qrels)")
	}
	changed := r.mostChanged(worst)
	if len(changed) > 0 {
		fmt.Fprintf(w, "queries that changed most:\n")
		for _, d := range changed {
			fmt.Fprintf(w, "  %-16s %-6s tau %s  Jaccard %.2f  %s\n", d.ID, d.Class, num(d.Tau), d.Jaccard, d.Text)
		}
	}
	return nil
}

// mostChanged returns up to n queries with the lowest Jaccard, then tau.
func (r *Report) mostChanged(n int) []QueryDiff {
	var out []QueryDiff
	for _, d := range r.Queries {
		if d.Class != Identical {
			out = append(out, d)
		}
	}
	key := func(d QueryDiff) float64 {
		if math.IsNaN(d.Tau) {
			return d.Jaccard*10 - 1
		}
		return d.Jaccard*10 + d.Tau
	}
	for i := 1; i < len(out); i++ { // insertion sort: stable, small n
		for j := i; j > 0 && key(out[j]) < key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func share(k, n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f%%)", k, 100*float64(k)/float64(n))
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", v)
}

func lat(l *Latency) string {
	if l == nil {
		return "not measured"
	}
	return fmt.Sprintf("p50 %.2f, p95 %.2f, p99 %.2f (n %d)", l.P50, l.P95, l.P99, l.N)
}

// jsonReport is the report's JSON form: NaN (an undefined tau) is null.
type jsonReport struct {
	Control     string              `json:"control"`
	Treatment   string              `json:"treatment"`
	K           int                 `json:"k"`
	Counts      map[string]int      `json:"counts"`
	MeanTau     *float64            `json:"mean_kendall_tau"`
	MeanJaccard float64             `json:"mean_jaccard"`
	Top1Changed float64             `json:"top1_changed"`
	Latency     map[string]*Latency `json:"latency_ms,omitempty"`
	Metric      *jsonMetric         `json:"metric,omitempty"`
	Queries     []jsonQuery         `json:"queries"`
}

type jsonMetric struct {
	Name      string       `json:"name"`
	N         int          `json:"n"`
	Control   float64      `json:"control"`
	Treatment float64      `json:"treatment"`
	Bootstrap jsonInterval `json:"bootstrap"`
	SPRT      jsonSPRT     `json:"sprt"`
	PSuperior float64      `json:"p_treatment_superior"`
	McNemar   *jsonBinary  `json:"mcnemar,omitempty"`
}

type jsonBinary struct {
	TreatmentWins int     `json:"treatment_wins"`
	ControlWins   int     `json:"control_wins"`
	Ties          int     `json:"ties"`
	PExact        float64 `json:"p_exact"`
	ChiSquare     float64 `json:"chi_square"`
	PChiSquare    float64 `json:"p_chi_square"`
	PSuperior     float64 `json:"p_treatment_superior"`
}

type jsonInterval struct {
	Mean  float64 `json:"mean_delta"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"`
}

type jsonSPRT struct {
	Decision string    `json:"decision"`
	N        int       `json:"n"`
	Upper    float64   `json:"upper"`
	Lower    float64   `json:"lower"`
	Better   []float64 `json:"llr_better"`
	Worse    []float64 `json:"llr_worse"`
}

type jsonQuery struct {
	ID          string   `json:"id"`
	Query       string   `json:"query"`
	Class       string   `json:"class"`
	Tau         *float64 `json:"kendall_tau"`
	Jaccard     float64  `json:"jaccard"`
	Top1Changed bool     `json:"top1_changed"`
	Control     *float64 `json:"control_metric,omitempty"`
	Treatment   *float64 `json:"treatment_metric,omitempty"`
	ControlIDs  []string `json:"control_ids"`
	TreatIDs    []string `json:"treatment_ids"`
}

// orEmpty is ids, or an empty list for none (JSON [] rather than null).
func orEmpty(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	j := jsonReport{Control: r.Control, Treatment: r.Treatment, K: r.K, Counts: r.Counts, MeanTau: finite(r.MeanTau),
		MeanJaccard: r.MeanJaccard, Top1Changed: r.Top1Changed}
	if r.ControlLatency != nil || r.TreatmentLatency != nil {
		j.Latency = map[string]*Latency{"control": r.ControlLatency, "treatment": r.TreatmentLatency}
	}
	if m := r.Metric; m != nil {
		s := m.Sequential
		j.Metric = &jsonMetric{Name: m.Name, N: m.N, Control: m.Control, Treatment: m.Treated, Bootstrap: jsonInterval{m.Bootstrap.Mean, m.Bootstrap.Low, m.Bootstrap.High, m.Bootstrap.Level},
			SPRT: jsonSPRT{Decision: s.Decision, N: s.N, Upper: s.Upper, Lower: s.Lower, Better: s.Better, Worse: s.Worse}, PSuperior: m.PSuperior}
		if b := m.Binary; b != nil {
			j.Metric.McNemar = &jsonBinary{TreatmentWins: b.Wins, ControlWins: b.Losses, Ties: b.Ties, PExact: b.ExactP, ChiSquare: b.ChiSquare, PChiSquare: b.ChiSquareP, PSuperior: b.PSuperior}
		}
	}
	for _, d := range r.Queries {
		j.Queries = append(j.Queries, jsonQuery{ID: d.ID, Query: d.Text, Class: d.Class, Tau: finite(d.Tau), Jaccard: d.Jaccard,
			Top1Changed: d.Top1Changed, Control: d.Control, Treatment: d.Treatment, ControlIDs: orEmpty(d.ControlIDs), TreatIDs: orEmpty(d.TreatmentIDs)})
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// pathPoints is how many points of the log-likelihood ratio paths the
// text report shows.
const pathPoints = 10

// writePath writes the two one-sided tests' log-likelihood ratio paths at
// up to pathPoints evenly spaced query counts, the last being where the
// test stopped (the JSON report has every point).
func writePath(w io.Writer, better, worse []float64) {
	n := min(len(better), len(worse))
	if n == 0 {
		return
	}
	var at []int
	for i := 1; i <= pathPoints; i++ {
		k := (i*n + pathPoints - 1) / pathPoints
		if len(at) == 0 || k > at[len(at)-1] {
			at = append(at, k)
		}
	}
	row := func(name string, f func(k int) string) {
		fmt.Fprintf(w, "  %-22s", name)
		for _, k := range at {
			fmt.Fprintf(w, " %8s", f(k))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "log-likelihood ratio path:")
	row("queries", func(k int) string { return strconv.Itoa(k) })
	row("better (+effect vs 0)", func(k int) string { return strconv.FormatFloat(better[k-1], 'f', 3, 64) })
	row("worse (-effect vs 0)", func(k int) string { return strconv.FormatFloat(worse[k-1], 'f', 3, 64) })
}
