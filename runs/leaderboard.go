package runs

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// Leaderboard ranks the trials of a run. Its JSON form (leaderboard.json) is
// deterministic: same trials, same bytes.
type Leaderboard struct {
	// Primary describes the primary score, e.g. the composite's formula.
	Primary string `json:"primary"`
	// Metrics lists the scorecard's metrics in display order.
	Metrics []string `json:"metrics"`
	// Baseline names the baseline trial, if the run had one.
	Baseline string  `json:"baseline,omitempty"`
	Trials   []Entry `json:"trials"`
	// Warnings are caveats about the results, carried as data.
	Warnings []string `json:"warnings,omitempty"`
	// Stats records how the comparisons were computed, seeds included.
	Stats *StatsInfo `json:"stats,omitempty"`
	// Power is the run's minimum detectable effect (best trial vs the
	// reference), when a comparison was made.
	Power *Power `json:"power,omitempty"`
	// HeldOut is the chosen trial's score on the held-out test split, when
	// the run tuned on the dev split.
	HeldOut *HeldOut `json:"held_out,omitempty"`
	// Ceiling is the score of the ideal ranking on this golden set, when
	// known (see SetCeiling).
	Ceiling *Ceiling `json:"ceiling,omitempty"`
	// Rescored is the judge-as-you-tune loop's record (see judged.go).
	Rescored *Rescored `json:"rescored,omitempty"`
	// Verdict says what to ship and how sure the run is of it.
	Verdict *Verdict `json:"verdict,omitempty"`
	// ShowJudgedOnly adds the judged-only columns to the text, Markdown
	// and CSV tables (tune leaderboard --judged-only).
	ShowJudgedOnly bool `json:"-"`
	// Width is the widest line of the text table (0: DefaultWidth; < 0:
	// no limit, tune leaderboard --wide), Top how many trials the text
	// and Markdown tables show, the baseline aside (0: all).
	Width int `json:"-"`
	Top   int `json:"-"`
}

// Ceiling is the best any trial can score on a golden set: per query, the
// judged documents ranked by grade (highest first), scored with the run's
// scorecard and averaged over the queries as the trials are. A metric that
// needs more judged documents than a query has (P@20 with three
// judgments) cannot reach 1, and neither can a composite of such metrics:
// the ceiling says how far it can go. Its Judged@k is the reachable judged
// coverage, min(k, judged)/k per query.
type Ceiling struct {
	Primary   float64            `json:"primary"`
	Scorecard map[string]float64 `json:"scorecard,omitempty"`
	// Categories holds the ceiling's scorecard (with "primary") per
	// category.
	Categories map[string]map[string]float64 `json:"categories,omitempty"`
}

// SetCeiling records c and each successful trial's primary score as a
// share of c.Primary (OfCeiling), rounded like every score. A pruned
// trial's score covers part of the queries only and gets none.
func (lb *Leaderboard) SetCeiling(c Ceiling) {
	c.Primary = round(c.Primary)
	c.Scorecard = roundMap(c.Scorecard)
	c.Categories = roundNested(c.Categories)
	lb.Ceiling = &c
	for i := range lb.Trials {
		e := &lb.Trials[i]
		e.OfCeiling = nil
		if c.Primary > 0 && e.Status == StatusOK {
			v := round(e.Primary / c.Primary)
			e.OfCeiling = &v
		}
	}
}

// StatsInfo describes the statistics step of a run.
type StatsInfo struct {
	// Against names the reference trial of every Comparison.
	Against string `json:"against"`
	// Test is the test whose p-value is corrected and marked.
	Test string `json:"test"`
	// Rule states the decision rule of the primary comparisons in words,
	// with the family it corrected over (see stats.Rule).
	Rule       string  `json:"rule,omitempty"`
	Correction string  `json:"correction"`
	Alpha      float64 `json:"alpha"`
	Level      float64 `json:"ci_level"`
	Resamples  int     `json:"resamples"`
	// Permutations of the randomization test (when not enumerated).
	Permutations int `json:"permutations"`
	// Seed is the run's statistics seed; each comparison's own seed is
	// derived from it and the trial's name.
	Seed int64 `json:"seed"`
	// MinCategoryQueries is the fewest queries a category interval needs.
	MinCategoryQueries int `json:"min_category_queries"`
}

// HeldOut is a trial's score on queries it was not tuned on.
type HeldOut struct {
	Trial string `json:"trial"`
	// Split is the held-out split's name (test); Queries its scored
	// queries.
	Split   string `json:"split"`
	Queries int    `json:"queries"`
	// Primary is the score on the held-out split, DevPrimary the score the
	// trial was chosen by.
	Primary    float64            `json:"primary"`
	DevPrimary float64            `json:"dev_primary"`
	Scorecard  map[string]float64 `json:"scorecard,omitempty"`
	Failed     int                `json:"failed_queries,omitempty"`
	// Select, then confirm: Confirmation is the one pre-planned comparison
	// of the chosen trial with the reference (the baseline) on the
	// held-out queries (a family of one: no correction), the promotion
	// policy's test when present. DevDelta is the chosen trial's gain over
	// the reference on dev (what it was selected by), Kept the share of it
	// the held-out gain keeps (Confirmation.Delta / DevDelta; nil when the
	// dev gain is not positive).
	Confirmation *Comparison `json:"confirmation,omitempty"`
	DevDelta     *float64    `json:"dev_delta,omitempty"`
	Kept         *float64    `json:"kept,omitempty"`
	// Power is the confirmation's minimum detectable effect (one
	// comparison on the held-out queries); it is the run's Power.
	Power *Power `json:"power,omitempty"`
}

// Entry is one trial's row.
type Entry struct {
	Rank   int            `json:"rank"`
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
	// Defaults holds, for the parameters other trials set and this one
	// leaves unset, the values its configuration gives them (the backend
	// kind's defaults, see SetDefaults): where charts place the trial.
	Defaults map[string]any `json:"defaults,omitempty"`
	Status   string         `json:"status"`
	Mode     string         `json:"mode"`
	Error    string         `json:"error,omitempty"`
	Primary  float64        `json:"primary"`
	// OfCeiling is Primary over the leaderboard's Ceiling.Primary (1: the
	// ideal ranking's score), when the ceiling is known.
	OfCeiling *float64 `json:"of_ceiling,omitempty"`
	Delta     *float64 `json:"delta_vs_baseline,omitempty"`
	// Comparison is the paired comparison against the baseline on the
	// primary score; MetricComparisons those on the other chosen metrics.
	Comparison        *Comparison  `json:"vs_baseline,omitempty"`
	MetricComparisons []Comparison `json:"vs_baseline_metrics,omitempty"`
	// CategoryIntervals holds the primary score per category with its
	// bootstrap interval.
	CategoryIntervals map[string]Interval `json:"category_intervals,omitempty"`
	// Summary is the trial record's, its scores rounded (see Round).
	Summary
	Index int `json:"trial"`
	// Sampler and Fraction are the trial record's (sampled trials, pruning).
	Sampler  string  `json:"sampler,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
	// SameAs names the best-ranked trial whose results this one repeats
	// exactly (the same ranking and scores on every query, see
	// MarkSameResults); the text and Markdown tables show such trials as
	// one row. Empty for a trial with results of its own.
	SameAs string `json:"same_as,omitempty"`
	// ReusedFrom is the trial record's: the trial was not run but reuses
	// that trial's results (the backend's fingerprint matched).
	ReusedFrom string `json:"reused_from,omitempty"`
	// JudgedOnly holds the judged-only (condensed-list, trec_eval -J)
	// means of the key metrics, by metric name (see judged.go).
	JudgedOnly map[string]float64 `json:"judged_only,omitempty"`
}

// NewLeaderboard orders trials best first: successful trials by primary
// score descending (ties by name), then pruned and failed ones by name.
func NewLeaderboard(primary string, metrics []string, trials []TrialRecord) Leaderboard {
	lb := Leaderboard{Primary: primary, Metrics: append([]string(nil), metrics...)}
	var base *TrialRecord
	for i := range trials {
		if trials[i].Baseline {
			base = &trials[i]
			lb.Baseline = trials[i].Name
		}
	}
	for _, t := range trials {
		e := Entry{
			Name: t.Name, Params: t.Params, Status: t.Status, Mode: t.Mode, Error: t.Error,
			Primary: round(t.Primary), Summary: t.Summary.rounded(), Index: t.Index,
			Sampler: t.Sampler, Fraction: round(t.Fraction), ReusedFrom: t.ReusedFrom,
		}
		if base != nil && base.Status == StatusOK && t.Status == StatusOK {
			d := round(t.Primary - base.Primary)
			e.Delta = &d
		}
		lb.Trials = append(lb.Trials, e)
	}
	order := func(s string) int {
		switch s {
		case StatusOK:
			return 0
		case StatusPruned:
			return 1
		}
		return 2
	}
	sort.SliceStable(lb.Trials, func(i, j int) bool {
		a, b := lb.Trials[i], lb.Trials[j]
		if order(a.Status) != order(b.Status) {
			return order(a.Status) < order(b.Status)
		}
		if a.Status == StatusOK && a.Primary != b.Primary {
			return a.Primary > b.Primary
		}
		return a.Name < b.Name
	})
	for i := range lb.Trials {
		lb.Trials[i].Rank = i + 1
		if w := queryErrorWarning(lb.Trials[i]); w != "" {
			lb.Warnings = append(lb.Warnings, w)
		}
	}
	return lb
}

// queryErrorWarning is the footnote of a trial whose failed queries were
// scored under eval.on_query_error instead of failing it ("" for none).
func queryErrorWarning(e Entry) string {
	switch {
	case e.Failed == 0:
		return ""
	case e.OnQueryError == "zero":
		return fmt.Sprintf("trial %s: %d queries failed after retries and were scored 0 (eval.on_query_error: zero)", e.Name, e.Failed)
	case e.OnQueryError == "skip":
		return fmt.Sprintf("trial %s: %d queries failed after retries and were left out of its scores and paired tests (eval.on_query_error: skip)", e.Name, e.Failed)
	}
	return ""
}

// MarkSameResults sets SameAs on every successful entry whose results
// key equals that of a better-ranked one: keys maps trial names to a key
// of their per-query results (the tuner hashes each query's ranking,
// routing and primary score); a trial without a key is left alone.
func (lb *Leaderboard) MarkSameResults(keys map[string]string) {
	first := map[string]string{}
	for i := range lb.Trials {
		e := &lb.Trials[i]
		e.SameAs = ""
		k, ok := keys[e.Name]
		if e.Status != StatusOK || !ok || k == "" {
			continue
		}
		if rep, ok := first[k]; ok {
			e.SameAs = rep
			continue
		}
		first[k] = e.Name
	}
}

// Same returns the names of the trials marked SameAs name, in rank order.
func (lb Leaderboard) Same(name string) []string {
	var out []string
	for _, e := range lb.Trials {
		if e.SameAs == name {
			out = append(out, e.Name)
		}
	}
	return out
}

// Best returns the best successful entry, or false when none succeeded.
func (lb Leaderboard) Best() (Entry, bool) {
	if len(lb.Trials) == 0 || lb.Trials[0].Status != StatusOK {
		return Entry{}, false
	}
	return lb.Trials[0], true
}

// ErrAmbiguousTrial is returned by Pick for a name prefix that several
// trials share.
var ErrAmbiguousTrial = errors.New("ambiguous trial")

// Pick returns the trial ref selects, the way every command that takes a
// trial reads it: "" is the best successful trial; "#N" the trial ranked
// N on the leaderboard; otherwise a trial's exact name or label (the
// name the tables show, see Labels), else a unique prefix of one (an
// ambiguous prefix lists the candidates). A label the text table cut
// short ("tpe-014 k=37,…") is read as the prefix before its "…". A bare
// number that is no trial's name is refused with a hint, since it might
// mean a rank or a trial index.
func (lb Leaderboard) Pick(ref string) (Entry, error) {
	if ref == "" {
		e, ok := lb.Best()
		if !ok {
			return Entry{}, errors.New("runs: no trial succeeded")
		}
		return e, nil
	}
	if n, ok := strings.CutPrefix(ref, "#"); ok {
		rank, ok := plainnum.Int(n)
		if !ok || rank < 1 {
			return Entry{}, fmt.Errorf("runs: trial %q: want #N with N a leaderboard rank from 1", ref)
		}
		if rank > len(lb.Trials) {
			return Entry{}, fmt.Errorf("runs: trial %q: the leaderboard has %d trials", ref, len(lb.Trials))
		}
		return lb.Trials[rank-1], nil
	}
	labels := lb.Labels()
	prefix, cut := strings.CutSuffix(ref, "…")
	var match []Entry
	for _, e := range lb.Trials {
		if !cut && (e.Name == ref || labels[e.Name] == ref) {
			return e, nil
		}
		if strings.HasPrefix(e.Name, prefix) || strings.HasPrefix(labels[e.Name], prefix) {
			match = append(match, e)
		}
	}
	if _, err := strconv.Atoi(ref); err == nil && len(match) == 0 {
		return Entry{}, notFound{fmt.Errorf("runs: no trial named %q: write #%s for the trial ranked %s", ref, ref, ref)}
	}
	switch len(match) {
	case 0:
		return Entry{}, notFound{fmt.Errorf("runs: no trial %q in the leaderboard (trials: %s)", ref, trialNames(lb.Trials, labels, 10))}
	case 1:
		return match[0], nil
	}
	return Entry{}, fmt.Errorf("runs: trial %q: %w: %d trials start with it: %s", ref, ErrAmbiguousTrial, len(match), trialNames(match, labels, 10))
}

// trialNames lists up to max trials by rank and label.
func trialNames(es []Entry, labels map[string]string, max int) string {
	var names []string
	for i, e := range es {
		if i == max {
			names = append(names, fmt.Sprintf("... %d more", len(es)-max))
			break
		}
		names = append(names, fmt.Sprintf("#%d %s", e.Rank, labels[e.Name]))
	}
	return strings.Join(names, ", ")
}

// Find returns the entry named name.
func (lb Leaderboard) Find(name string) (Entry, error) {
	for _, e := range lb.Trials {
		if e.Name == name || fmt.Sprint(e.Index) == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("runs: no trial %q in the leaderboard", name)
}

// Round rounds a score the way every leaderboard number is rounded (to
// 1e-12, no negative zero, non-finite values as 0).
func Round(v float64) float64 { return round(v) }

// Scores are rounded to 1e-12 before they are written, so that harmless
// floating-point noise (summation order across CPUs) cannot change bytes.
func round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	r := math.Round(v*1e12) / 1e12
	if r == 0 {
		return 0 // no negative zero
	}
	return r
}

// rounded is s with its scores rounded.
func (s Summary) rounded() Summary {
	out := Summary{
		Scorecard: roundMap(s.Scorecard), Categories: roundNested(s.Categories), Difficulties: roundNested(s.Difficulties),
		Queries: s.Queries, Failed: s.Failed, OnQueryError: s.OnQueryError, TopLabels: s.TopLabels.clone(),
	}
	if s.Routing != nil {
		v := round(*s.Routing)
		out.Routing = &v
	}
	return out
}

func roundMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round(v)
	}
	return out
}

func roundNested(m map[string]map[string]float64) map[string]map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]float64, len(m))
	for k, v := range m {
		out[k] = roundMap(v)
	}
	return out
}

// ConfirmLine states the select-then-confirm result in one line: the dev
// gain, the held-out gain with its interval and decision, and the share
// kept ("" without a confirmation).
func (h HeldOut) ConfirmLine() string {
	c := h.Confirmation
	if c == nil {
		return ""
	}
	dev, kept := "—", "—"
	if h.DevDelta != nil {
		dev = FormatDelta(*h.DevDelta)
	}
	if h.Kept != nil {
		kept = FormatShare(*h.Kept)
	}
	decision := "n.s."
	switch {
	case c.Mark != "":
		decision = c.Mark
	case c.PAdjusted == nil:
		decision = "?"
	}
	return fmt.Sprintf("select, then confirm: %s vs %s: dev Δ %s, held-out Δ %s [%s, %s] %s (p = %.4g; sig: %s), keeps %s of the dev gain",
		h.Trial, c.Against, dev, FormatDelta(c.Delta), FormatBound(c.Low), FormatBound(c.High), decision, c.P, c.Rule, kept)
}

// Power is the minimum detectable effect of a run: the smallest true mean
// difference its decision would detect with probability Power, at the
// level Alpha the best trial's comparison is tested at (α over the
// family, Bonferroni), given the per-query standard deviation SD of the
// paired differences of Trial vs Against over N queries.
type Power struct {
	Trial   string  `json:"trial"`
	Against string  `json:"against"`
	N       int     `json:"n"`
	SD      float64 `json:"sd"`
	Alpha   float64 `json:"alpha"`
	Family  int     `json:"family"`
	Power   float64 `json:"power"`
	MDE     float64 `json:"mde"`
	// Delta is the best trial's mean gain; Below is true when it is
	// smaller than MDE.
	Delta float64 `json:"delta"`
	Below bool    `json:"below_mde"`
}

// Line states the minimum detectable effect in one line, and says so when
// the best trial's gain is below it.
func (p Power) Line() string {
	family := fmt.Sprintf("over %d trials", p.Family)
	if p.Family <= 1 {
		family = "for one comparison"
	}
	s := fmt.Sprintf("power: minimum detectable effect %.4f (α = %.4g %s, %.0f%% power, sd %.4f of %d paired differences %s vs %s)",
		p.MDE, p.Alpha, family, 100*p.Power, p.SD, p.N, p.Trial, p.Against)
	if p.Below {
		s += fmt.Sprintf("; the best gain %s is below it: a true gain that small is detected less than %.0f%% of the time (see tune plan)", FormatDelta(p.Delta), 100*p.Power)
	}
	return s
}
