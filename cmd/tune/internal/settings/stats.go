package settings

import (
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// Stats configure the statistics step after a sweep (settings key
// stats). Zero values take the stats package's defaults.
type Stats struct {
	// Correction is holm (default), bh or none.
	Correction         string  `mapstructure:"correction"`
	Alpha              float64 `mapstructure:"alpha"`
	Level              float64 `mapstructure:"level"`
	Resamples          int     `mapstructure:"resamples"`
	Permutations       int     `mapstructure:"permutations"`
	MinCategoryQueries int     `mapstructure:"min_category_queries"`
	MinNonZeroPairs    int     `mapstructure:"min_nonzero_pairs"`
	// Seed of the bootstrap and randomization tests; nil: the experiment
	// file's seed.
	Seed *int64 `mapstructure:"seed"`
	// Metrics are compared besides the primary score.
	Metrics []string `mapstructure:"metrics"`
}

// Promotion is the promotion policy (settings key promotion).
type Promotion struct {
	// Guarded categories may not regress by more than Tolerance (primary
	// score) for a promotion to go ahead.
	Guarded   []string `mapstructure:"guarded"`
	Tolerance float64  `mapstructure:"tolerance"`
	// RequireRobustWinner refuses a winner that does not lead under
	// every judge of the label store (tune judge robust).
	RequireRobustWinner bool `mapstructure:"require_robust_winner"`
}

func statsDefaults() map[string]any {
	return map[string]any{
		"stats.correction":           stats.Holm,
		"stats.alpha":                stats.DefaultAlpha,
		"stats.level":                stats.DefaultLevel,
		"stats.resamples":            stats.DefaultResamples,
		"stats.permutations":         stats.DefaultPermutations,
		"stats.min_category_queries": stats.DefaultMinIntervalN,
		"stats.min_nonzero_pairs":    stats.DefaultMinNonZeroPairs,
		"promotion.tolerance":        promote.DefaultGuardTolerance,
	}
}

// Validate checks the stats settings, listing every problem at once
// (fields relative to the stats block), and writes stats.metrics in their
// canonical spelling.
func (st *Stats) Validate() experiments.Problems {
	var out experiments.Problems
	r := ranges{add: adder(&out)}
	switch st.Correction {
	case stats.Holm, stats.BH, stats.None:
	default:
		r.add("correction", "must be holm, bh or none (got %q)", st.Correction)
	}
	r.open01("alpha", st.Alpha)
	r.open01("level", st.Level)
	r.ints("resamples", st.Resamples, stats.MinResamples, stats.MaxResamples, "")
	r.ints("permutations", st.Permutations, stats.MinPermutations, stats.MaxPermutations, "")
	r.ints("min_category_queries", st.MinCategoryQueries, 2, maxQueryCount, "")
	r.ints("min_nonzero_pairs", st.MinNonZeroPairs, 1, maxQueryCount, "")
	for i, m := range st.Metrics {
		mm, err := metrics.ParseMetric(m)
		if err != nil {
			r.add(fmt.Sprintf("metrics[%d]", i), "%v", err)
			continue
		}
		st.Metrics[i] = mm.String()
	}
	return out
}

// Validate checks the promotion policy, listing every problem at once
// (fields relative to the promotion block).
func (p Promotion) Validate() experiments.Problems {
	var out experiments.Problems
	r := ranges{add: adder(&out)}
	r.closed("tolerance", p.Tolerance, 0, maxTolerance)
	for i, c := range p.Guarded {
		if c == "" {
			r.add(fmt.Sprintf("guarded[%d]", i), "must name a category")
		}
	}
	return out
}

// parseGates parses the gates into ParsedGates and adds the metrics
// stats.metrics and the gates need to score.metrics (after Stats.Validate
// wrote stats.metrics canonically).
func (s *Settings) parseGates(add func(field, format string, args ...any)) {
	var extra []string
	for _, m := range s.Stats.Metrics {
		if _, err := metrics.ParseMetric(m); err == nil {
			extra = append(extra, m)
		}
	}
	s.ParsedGates = nil
	for i, text := range s.Gates {
		g, err := verdict.ParseGate(text)
		if err != nil {
			add(fmt.Sprintf("gates[%d]", i), "%v", err)
			continue
		}
		s.ParsedGates = append(s.ParsedGates, g)
	}
	extra = append(extra, verdict.GateMetrics(s.ParsedGates)...)
	seen := map[string]bool{}
	for _, m := range s.Score.Metrics {
		seen[m] = true
	}
	for _, m := range extra {
		if !seen[m] {
			seen[m] = true
			s.Score.Metrics = append(s.Score.Metrics, m)
		}
	}
}

// StatsOptions turns the settings into the tuner's statistics options;
// seed is the experiment file's seed, used when stats.seed is not set.
func (s *Settings) StatsOptions(seed int64) analysis.StatsOptions {
	st := s.Stats
	if st.Seed != nil {
		seed = *st.Seed
	}
	th := stats.DefaultThresholds()
	th.Alpha, th.Level = st.Alpha, st.Level
	th.Resamples, th.Permutations = st.Resamples, st.Permutations
	th.MinIntervalN, th.MinNonZeroPairs = st.MinCategoryQueries, st.MinNonZeroPairs
	return analysis.StatsOptions{Thresholds: th, Correction: st.Correction, Metrics: st.Metrics, Seed: seed}
}

// Policy is the promotion policy from the settings.
func (s *Settings) Policy(seed int64) promote.Policy {
	return promote.Policy{Guarded: s.Promotion.Guarded, Tolerance: s.Promotion.Tolerance, Stats: s.StatsOptions(seed)}
}
