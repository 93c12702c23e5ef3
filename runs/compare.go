package runs

// Comparison is a trial's paired comparison against a reference trial (the
// baseline, or the production config) on per-query scores. It is filled by
// the tuner's statistics step; the leaderboard and the report render it.
type Comparison struct {
	// Against names the reference trial.
	Against string `json:"against"`
	// Metric is the per-query score compared ("primary" or a metric name).
	Metric string `json:"metric"`
	// N is the number of paired queries; NonZero those whose difference is
	// not zero.
	N       int `json:"n"`
	NonZero int `json:"n_nonzero"`
	// Delta is the mean per-query difference (trial minus reference), with
	// [Low, High] the interval of the decision rule (stats.Decide): the
	// mean differences the paired randomization test does not reject at
	// the level the correction leaves for this comparison, Level (e.g.
	// 0.998 for Holm over 26 trials, 0.95 for one comparison). It excludes
	// 0 exactly when the comparison is significant.
	Delta float64 `json:"delta"`
	Low   float64 `json:"ci_low"`
	High  float64 `json:"ci_high"`
	Level float64 `json:"ci_level"`
	// P is the paired randomization test's two-sided p-value, the
	// decision's test.
	P float64 `json:"p_randomization"`
	// PAdjusted is P corrected over the family (Correction names the
	// method: holm, bh or none; Family the number of comparisons).
	PAdjusted  *float64 `json:"p_adjusted,omitempty"`
	Correction string   `json:"correction,omitempty"`
	Family     int      `json:"family"`
	// Rule states the decision rule and its family in words.
	Rule string `json:"rule"`
	// Significant is true when [Low, High] excludes 0 (PAdjusted < Alpha);
	// Mark is its one-character rendering ("+", "-" or "").
	Significant bool    `json:"significant"`
	Alpha       float64 `json:"alpha"`
	Mark        string  `json:"mark,omitempty"`
	// Secondary holds tests that are reported but decide nothing.
	Secondary *Secondary `json:"secondary,omitempty"`
	// Seed is the seed of the bootstrap and the randomization test.
	Seed int64 `json:"seed"`
	// Warnings are statistical caveats ("too few non-zero pairs").
	Warnings []string `json:"warnings,omitempty"`
}

// Secondary are the tests of a comparison that take no part in the
// decision, kept for readers who want them: the unadjusted paired
// bootstrap interval of the mean difference and the Wilcoxon signed-rank
// test (W, two-sided p and the one-sided p for "trial better"; nil when
// there are too few non-zero pairs).
type Secondary struct {
	BootstrapLow   float64  `json:"bootstrap_ci_low"`
	BootstrapHigh  float64  `json:"bootstrap_ci_high"`
	BootstrapLevel float64  `json:"bootstrap_ci_level"`
	W              *float64 `json:"wilcoxon_w,omitempty"`
	PWilcoxon      *float64 `json:"p_wilcoxon,omitempty"`
	PGreater       *float64 `json:"p_wilcoxon_greater,omitempty"`
}

// Interval is a mean with its bootstrap interval, e.g. one category's
// primary score.
type Interval struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	N    int     `json:"n"`
	// Warning says why there is no interval ("4 queries: no interval");
	// Low and High equal Mean then.
	Warning string `json:"warning,omitempty"`
}

// TrialComparison is `tune compare`'s result: trial B measured against
// trial A (deltas are B - A) on the queries both recorded.
type TrialComparison struct {
	A TrialRef `json:"a"`
	B TrialRef `json:"b"`
	// Paired holds the paired comparisons: the primary score first, then
	// any other chosen metric.
	Paired []Comparison `json:"paired"`
	// Categories are the per-category deltas of the primary score.
	Categories []CategoryDelta `json:"categories,omitempty"`
	// Diff compares the rankings themselves.
	Diff RankingDiff `json:"ranking_diff"`
	// Changed lists the queries whose primary score changed most.
	Changed  []QueryChange `json:"changed_most"`
	Warnings []string      `json:"warnings,omitempty"`
	// Superiority holds, per paired metric in Paired's order, the
	// Bayesian probability that B's mean is above A's.
	Superiority []Superiority `json:"superiority,omitempty"`
	// Binary holds McNemar's test for the paired metrics of success type
	// (every per-query value 0 or 1 on both sides, as Success@k).
	Binary []BinaryComparison `json:"binary,omitempty"`
	// Verdict says which side to run, and how sure the comparison is.
	Verdict *Verdict `json:"verdict,omitempty"`
	// Segments is B's scorecard split by a query attribute (--by), each
	// segment's Δ against A over the queries both scored.
	Segments *Segments `json:"segments,omitempty"`
}

// Superiority is the posterior probability that B's mean on Metric is
// above A's under the Bayesian bootstrap of the paired differences
// (stats.BayesSuperiority: Dirichlet(1, …, 1) weights on the queries, the
// posterior of Rubin's non-informative prior), from Draws seeded draws.
type Superiority struct {
	Metric string  `json:"metric"`
	P      float64 `json:"p_b_superior"`
	Draws  int     `json:"draws"`
	Seed   int64   `json:"seed"`
}

// BinaryComparison is McNemar's test of a success-type metric: the
// queries B passes and A fails (BWins), the reverse (AWins), the others
// (Ties); the exact two-sided p-value (the sign test of the discordant
// queries), the chi-square statistic with the continuity correction and
// its p-value; and PSuperior, P(θ > 1/2) for θ the share of discordant
// queries B wins under a uniform Beta(1, 1) prior.
type BinaryComparison struct {
	Metric     string  `json:"metric"`
	BWins      int     `json:"b_wins"`
	AWins      int     `json:"a_wins"`
	Ties       int     `json:"ties"`
	PExact     float64 `json:"p_mcnemar_exact"`
	ChiSquare  float64 `json:"mcnemar_chi_square"`
	PChiSquare float64 `json:"p_mcnemar_chi_square"`
	PSuperior  float64 `json:"p_b_superior"`
}

// TrialRef names one side of a comparison.
type TrialRef struct {
	Run     string  `json:"run"`
	Trial   string  `json:"trial"`
	Primary float64 `json:"primary"`
	Queries int     `json:"queries"`
}

// CategoryDelta is one category's mean primary score on both sides, the
// mean paired difference and its bootstrap interval.
type CategoryDelta struct {
	Category string   `json:"category"`
	N        int      `json:"n"`
	A        float64  `json:"a"`
	B        float64  `json:"b"`
	Delta    Interval `json:"delta"`
}

// RankingDiff summarizes how the rankings differ per query.
type RankingDiff struct {
	// Queries is the number of queries compared (both sides answered).
	Queries int `json:"queries"`
	// KendallTau is the mean over queries of Kendall's tau-b between the
	// two recorded top lists.
	KendallTau float64 `json:"kendall_tau"`
	// JaccardK and Jaccard: the mean Jaccard overlap of the top JaccardK.
	JaccardK int     `json:"jaccard_k"`
	Jaccard  float64 `json:"jaccard"`
	// Top1Changed is the share of queries whose first result differs
	// (Top1ChangedN of Queries).
	Top1Changed  float64 `json:"top1_changed"`
	Top1ChangedN int     `json:"top1_changed_n"`
}

// QueryChange is one query's primary score on both sides with its top
// results.
type QueryChange struct {
	QueryID  string      `json:"query_id"`
	Category string      `json:"category,omitempty"`
	A        float64     `json:"a"`
	B        float64     `json:"b"`
	Delta    float64     `json:"delta"`
	TopA     []RankedDoc `json:"top_a"`
	TopB     []RankedDoc `json:"top_b"`
}
