package adapt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/tuner/replay"
)

// DefaultMetric is the per-query metric `tune adapt` learns and
// evaluates policies on.
const DefaultMetric = "NDCG@10"

// RunOptions configure Adapt.
type RunOptions struct {
	Options
	// Metric is the per-query metric (a scorecard metric of the run, or
	// "primary"); "" is DefaultAdaptMetric.
	Metric string
	// Collection picks one replay group by its collection file
	// (collect-001.jsonl); "" evaluates every group with two arms or more.
	Collection string
	// Alpha is the level of the paired test (0: stats' default 0.05).
	Alpha float64
	// Thresholds are the statistics thresholds of the paired test.
	Thresholds stats.Thresholds
}

// Report is the outcome of learning a policy on one replay group of a
// run and evaluating it by cross-validation.
type Report struct {
	Run        string   `json:"run"`
	Collection string   `json:"collection"`
	Group      string   `json:"group"`
	Metric     string   `json:"metric"`
	Arms       []string `json:"arms"`
	Queries    int      `json:"queries"`
	// Skipped counts queries without candidate lists (failed live).
	Skipped  int      `json:"skipped"`
	Features []string `json:"features"`
	Folds    int      `json:"folds"`
	Seed     int64    `json:"seed"`
	Levels   int      `json:"levels"`
	MinLeaf  int      `json:"min_leaf"`
	// Held-out means: the best global arm of the training folds, the
	// policy learned on them, and every query's best arm.
	Global float64 `json:"global"`
	Policy float64 `json:"policy"`
	Oracle float64 `json:"oracle"`
	// Test is the decision rule's verdict on policy - global, per query.
	Test stats.Decision `json:"test"`
	Rule string         `json:"rule"`
	// Promotable is true only when the policy beats the global setting
	// significantly on held-out folds.
	Promotable bool   `json:"promotable"`
	Decision   string `json:"decision"`
	// GlobalBest names the best global arm on every query.
	GlobalBest string `json:"global_best"`
	// PerFeature is the held-out mean of a policy allowed one feature only
	// (same levels and leaf size): which features carry signal.
	PerFeature []FeatureResult `json:"per_feature"`
	// Learned is the policy learned on every query, with its evaluation.
	Learned *fusion.Policy `json:"policy_document"`
	// Rules is Learned's tree in readable form.
	Rules string `json:"rules"`
}

// FeatureResult is the held-out mean of a one-feature policy.
type FeatureResult struct {
	Feature string  `json:"feature"`
	HeldOut float64 `json:"held_out"`
}

// Run learns a query-adaptive fusion policy from each replay group of
// run (the replayed trials sharing one collection of candidate lists):
// the trial × query matrix of o.Metric, the features of every query
// (fusion.QueryFeatures on the collected lists), then k-fold
// cross-validation over queries (Matrix.CrossValidate) and the
// paired test of policy against global on the held-out scores. A group
// needs two distinct settings or more; a run without one is an input
// error.
func Run(ctx context.Context, run *runs.Run, o RunOptions) ([]*Report, error) {
	if o.Metric == "" {
		o.Metric = DefaultMetric
	}
	if o.Alpha == 0 {
		o.Alpha = stats.DefaultAlpha
	}
	trials, err := run.Trials()
	if err != nil {
		return nil, err
	}
	byCol := map[string][]runs.TrialRecord{}
	var cols []string
	for _, t := range trials {
		ref := replayRef(t)
		if ref == nil || t.Status != runs.StatusOK {
			continue
		}
		if o.Collection != "" && ref.Collection != o.Collection {
			continue
		}
		if byCol[ref.Collection] == nil {
			cols = append(cols, ref.Collection)
		}
		byCol[ref.Collection] = append(byCol[ref.Collection], t)
	}
	sort.Strings(cols)
	var out []*Report
	for _, name := range cols {
		r, err := adaptGroup(ctx, run, name, byCol[name], o)
		if err != nil {
			return nil, err
		}
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		what := "any replay group"
		if o.Collection != "" {
			what = fmt.Sprintf("collection %q", o.Collection)
		}
		return nil, inputerr.Wrap(fmt.Errorf("adapt: run %s: no replayed trials with two distinct settings or more in %s (adapt learns from a --mode replay sweep over query-time settings)", run.ID(), what))
	}
	return out, nil
}

// adaptGroup learns and evaluates a policy on one collection; nil when it
// holds fewer than two distinct settings.
func adaptGroup(ctx context.Context, run *runs.Run, name string, trials []runs.TrialRecord, o RunOptions) (*Report, error) {
	col, raw, err := loadCollectionRaw(run, name)
	if err != nil {
		return nil, err
	}
	m, err := adaptArms(trials)
	if err != nil || len(m.Arms) < 2 {
		return nil, err
	}
	r := &Report{Run: run.ID(), Collection: name, Group: trials[0].Group, Metric: o.Metric, Arms: m.Names}
	if r.Skipped, err = fillMatrix(m, col, raw, o.Metric); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := o.Options.Validate(len(m.Queries)); err != nil {
		return nil, inputerr.Wrap(err)
	}
	names := make([]string, 0, len(m.Arms[0].Fusion.Weights))
	for n := range raw[firstListed(col)] {
		names = append(names, n)
	}
	sort.Strings(names)
	r.Features = o.Features
	if r.Features == nil {
		r.Features = fusion.PolicyFeatures(names)
	}
	o.Features = r.Features
	r.Queries, r.Folds, r.Seed, r.Levels, r.MinLeaf = len(m.Queries), o.Folds, o.Seed, o.Levels, o.MinLeaf
	if err := r.crossValidate(ctx, m, o); err != nil {
		return nil, err
	}
	return r, r.learn(m, o, col.Depth)
}

// adaptArms is the matrix's arms: the distinct fusion settings of the
// group's trials that use the engine's own formula, named by their first
// trial.
func adaptArms(trials []runs.TrialRecord) (*Matrix, error) {
	m := &Matrix{}
	seen := map[string]bool{}
	for _, t := range trials {
		var s fusion.Settings
		ref := replayRef(t)
		if err := json.Unmarshal(ref.Settings, &s); err != nil {
			return nil, fmt.Errorf("adapt: trial %q: settings: %w", t.Name, err)
		}
		key := string(ref.Settings)
		if seen[key] || s.Formula != fusion.FormulaOwn {
			continue
		}
		seen[key] = true
		m.Arms = append(m.Arms, s)
		m.Names = append(m.Names, t.Name)
	}
	return m, nil
}

// fillMatrix replays every arm on every collected query (metric, or the
// primary score) and records each query's features; it returns the
// number of queries skipped (failed or without lists).
func fillMatrix(m *Matrix, col *replay.Collection, raw []map[string][]fusion.Candidate, metric string) (int, error) {
	rp := replay.NewReplayer(col.Scorer, col.K)
	mi := -1
	for i, n := range rp.Names {
		if n == metric {
			mi = i
		}
	}
	if mi < 0 && metric != "primary" {
		return 0, inputerr.Wrap(fmt.Errorf("adapt: metric %q: not in the run's scorecard (%s, or primary)", metric, strings.Join(rp.Names, ", ")))
	}
	skipped := 0
	for i := range col.Queries {
		c := &col.Queries[i]
		if c.Err != "" || c.Lists == nil {
			skipped++
			continue
		}
		row := make([]float64, len(m.Arms))
		for a, s := range m.Arms {
			vals, primary := rp.Score(&c.Query, s)
			if mi < 0 {
				row[a] = primary
			} else {
				row[a] = vals[mi]
			}
		}
		m.Queries = append(m.Queries, c.Q.ID)
		m.Scores = append(m.Scores, row)
		m.Features = append(m.Features, fusion.QueryFeatures(c.Q.Text, raw[i], col.Depth))
	}
	return skipped, nil
}

// crossValidate scores the global best, the policy and the oracle on
// held-out folds, tests the policy against the global best and decides;
// then each feature alone.
func (r *Report) crossValidate(ctx context.Context, m *Matrix, o RunOptions) error {
	h := m.CrossValidate(o.Options)
	r.Global, r.Policy, r.Oracle = Mean(h.Global), Mean(h.Policy), Mean(h.Oracle)
	p, err := stats.CompareContext(ctx, h.Policy, h.Global, o.Seed, o.Thresholds)
	if err != nil {
		return err
	}
	ds, err := stats.Decide([]stats.Flips{p.Flips}, stats.None, o.Alpha)
	if err != nil {
		return err
	}
	r.Test = ds[0]
	r.Rule = stats.Rule(stats.None, 1, o.Alpha)
	r.Promotable = r.Test.Significant && r.Test.Mean > 0
	switch {
	case r.Promotable:
		r.Decision = fmt.Sprintf("promotable: the policy beats the best global setting on held-out folds by %+.4f %s (p = %.3g)", r.Test.Mean, o.Metric, r.Test.P)
	case r.Test.Mean > 0:
		r.Decision = fmt.Sprintf("not promotable: the policy's held-out gain over the best global setting (%+.4f %s) is not significant (p = %.3g)", r.Test.Mean, o.Metric, r.Test.P)
	default:
		r.Decision = fmt.Sprintf("not promotable: the policy does not beat the best global setting on held-out folds (%+.4f %s, p = %.3g)", r.Test.Mean, o.Metric, r.Test.P)
	}
	for _, f := range r.Features {
		one := o.Options
		one.Features = []string{f}
		r.PerFeature = append(r.PerFeature, FeatureResult{Feature: f, HeldOut: Mean(m.CrossValidate(one).Policy)})
	}
	return nil
}

// learn fits the policy on every query and records it with its rules and
// the held-out evaluation.
func (r *Report) learn(m *Matrix, o RunOptions, depth int) error {
	all := make([]int, len(m.Queries))
	for i := range all {
		all[i] = i
	}
	r.GlobalBest = m.Names[m.Learn(all, Options{MinLeaf: 1}).Arm]
	pol := &fusion.Policy{Version: fusion.PolicyVersion, Metric: o.Metric, Depth: depth, Arms: m.Arms, Tree: m.Learn(all, o.Options)}
	pruneArms(pol)
	pol.Evaluation = &fusion.PolicyEvaluation{Folds: o.Folds, Seed: o.Seed, Queries: r.Queries, Global: r.Global, Policy: r.Policy,
		Oracle: r.Oracle, P: r.Test.P, Promotable: r.Promotable, Decision: r.Decision}
	if err := pol.Validate(); err != nil {
		return fmt.Errorf("adapt: learned policy: %w", err)
	}
	r.Learned = pol
	r.Rules = pol.Rules(func(s fusion.Settings) string { return describeArm(m, s) })
	return nil
}

// describeArm names an arm by its trial.
func describeArm(m *Matrix, s fusion.Settings) string {
	want, _ := json.Marshal(s)
	for i, a := range m.Arms {
		got, _ := json.Marshal(a)
		if bytes.Equal(got, want) {
			return fmt.Sprintf("%q", m.Names[i])
		}
	}
	return string(want)
}

// pruneArms keeps only the arms p's tree names, renumbering its leaves.
func pruneArms(p *fusion.Policy) {
	used := map[int]int{}
	var arms []fusion.Settings
	var walk func(n *fusion.PolicyNode)
	walk = func(n *fusion.PolicyNode) {
		if n.Feature != "" {
			walk(n.Below)
			walk(n.Above)
			return
		}
		i, ok := used[n.Arm]
		if !ok {
			i = len(arms)
			used[n.Arm] = i
			arms = append(arms, p.Arms[n.Arm])
		}
		n.Arm = i
	}
	walk(p.Tree)
	p.Arms = arms
}

// replayRef is the collection and settings trial t was replayed with
// (verified trials included), nil for a trial never replayed.
func replayRef(t runs.TrialRecord) *runs.ReplayRef {
	if t.Replay != nil {
		return t.Replay
	}
	return t.Replayed
}

// firstListed is the index of the first query of col with candidate lists.
func firstListed(col *replay.Collection) int {
	for i := range col.Queries {
		if col.Queries[i].Lists != nil {
			return i
		}
	}
	return 0
}

// loadCollectionRaw loads collection name of run and each query's
// candidate lists as collected (the features read them in retrieval
// order), in one read of the file.
func loadCollectionRaw(run *runs.Run, name string) (*replay.Collection, []map[string][]fusion.Candidate, error) {
	return replay.LoadLists(run, name, true)
}

// PolicyResults replays policy p over the collection name of run: each
// query fused under the arm p chooses for it, scored as a trial's results
// are (runs.QueryResult with every metric). It is the offline evaluation
// of a policy, exact: the engine applying p ranks each query alike.
func PolicyResults(run *runs.Run, name string, p *fusion.Policy) ([]runs.QueryResult, error) {
	col, raw, err := loadCollectionRaw(run, name)
	if err != nil {
		return nil, err
	}
	rp := replay.NewReplayer(col.Scorer, col.K)
	out := make([]runs.QueryResult, len(col.Queries))
	for i := range col.Queries {
		c := &col.Queries[i]
		q := c.Q
		r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: c.RequestID,
			Unjudged: len(q.Judgments) == 0}
		if c.Err != "" || c.Lists == nil {
			r.Error = c.Err
			r.Scores = map[string]float64{}
		} else {
			rp.Record(&r, &c.Query, p.Settings(fusion.QueryFeatures(q.Text, raw[i], p.Depth)))
		}
		out[i] = r
	}
	return out, nil
}

// Render writes reports as text (the held-out comparison, the
// decision, the rules, the one-feature diagnostics) or JSON.
func Render(w io.Writer, reports []*Report, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "run %s, replay group %s (%s): %d settings, %d queries", r.Run, r.Group, r.Collection, len(r.Arms), r.Queries)
		if r.Skipped > 0 {
			fmt.Fprintf(&b, " (%d without candidate lists skipped)", r.Skipped)
		}
		fmt.Fprintf(&b, "\n%d-fold cross-validation over queries (seed %d; tree of at most %d levels, leaves of at least %d queries)\n", r.Folds, r.Seed, r.Levels, r.MinLeaf)
		fmt.Fprintf(&b, "held-out %s:\n", r.Metric)
		fmt.Fprintf(&b, "  best global setting  %.4f\n", r.Global)
		fmt.Fprintf(&b, "  learned policy       %.4f  (%+.4f, %.0f%% interval [%+.4f, %+.4f], p = %.3g)\n", r.Policy, r.Test.Mean, 100*r.Test.Level, r.Test.Low, r.Test.High, r.Test.P)
		fmt.Fprintf(&b, "  per-query oracle     %.4f\n", r.Oracle)
		fmt.Fprintf(&b, "test: %s\n", r.Rule)
		fmt.Fprintf(&b, "decision: %s\n", r.Decision)
		fmt.Fprintf(&b, "best global setting on every query: %q\n", r.GlobalBest)
		fmt.Fprintf(&b, "policy learned on every query:\n")
		for _, line := range strings.Split(strings.TrimRight(r.Rules, "\n"), "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
		fmt.Fprintf(&b, "one feature at a time (held-out %s; global %.4f):\n", r.Metric, r.Global)
		for _, f := range r.PerFeature {
			fmt.Fprintf(&b, "  %-16s %.4f  (%+.4f)\n", f.Feature, f.HeldOut, f.HeldOut-r.Global)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CollectionTexts returns the query texts of collection name of run, in
// its query order (PolicyResults' order).
func CollectionTexts(run *runs.Run, name string) ([]string, error) {
	col, err := replay.Load(run, name)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(col.Queries))
	for i := range col.Queries {
		out[i] = col.Queries[i].Q.Text
	}
	return out, nil
}
