package main

import (
	"fmt"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
	"github.com/spf13/viper"
)

// statsSettings configure the statistics step after a sweep (settings key
// stats). Zero values take the stats package's defaults.
type statsSettings struct {
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

// promotionSettings are the promotion policy (settings key promotion).
type promotionSettings struct {
	// Guarded categories may not regress by more than Tolerance (primary
	// score) for a promotion to go ahead.
	Guarded   []string `mapstructure:"guarded"`
	Tolerance float64  `mapstructure:"tolerance"`
}

func statsDefaults(v *viper.Viper) {
	v.SetDefault("stats.correction", stats.Holm)
	v.SetDefault("stats.alpha", stats.DefaultAlpha)
	v.SetDefault("stats.level", stats.DefaultLevel)
	v.SetDefault("stats.resamples", stats.DefaultResamples)
	v.SetDefault("stats.permutations", stats.DefaultPermutations)
	v.SetDefault("stats.min_category_queries", stats.DefaultMinIntervalN)
	v.SetDefault("stats.min_nonzero_pairs", stats.DefaultMinNonZeroPairs)
	v.SetDefault("promotion.tolerance", promote.DefaultGuardTolerance)
}

// validateStats checks the stats, gates and promotion settings, parses the
// gates and adds the metrics gates and comparisons need to score.metrics.
func (s *settings) validateStats(add func(field, format string, args ...any)) {
	st := s.Stats
	switch st.Correction {
	case stats.Holm, stats.BH, stats.None:
	default:
		add("stats.correction", "must be holm, bh or none (got %q)", st.Correction)
	}
	s.rangeStats(ranges{add})
	s.validateMetricsAndGates(add)
}

// validateMetricsAndGates checks stats.metrics, the gates and the
// promotion policy, parses the gates and adds the metrics gates and
// comparisons need to score.metrics.
func (s *settings) validateMetricsAndGates(add func(field, format string, args ...any)) {
	st := s.Stats
	var extra []string
	for i, m := range st.Metrics {
		mm, err := metrics.ParseMetric(m)
		if err != nil {
			add(fmt.Sprintf("stats.metrics[%d]", i), "%v", err)
			continue
		}
		s.Stats.Metrics[i] = mm.String()
		extra = append(extra, mm.String())
	}
	s.gates = nil
	for i, text := range s.Gates {
		g, err := tuner.ParseGate(text)
		if err != nil {
			add(fmt.Sprintf("gates[%d]", i), "%v", err)
			continue
		}
		s.gates = append(s.gates, g)
	}
	extra = append(extra, tuner.GateMetrics(s.gates)...)
	for i, c := range s.Promotion.Guarded {
		if c == "" {
			add(fmt.Sprintf("promotion.guarded[%d]", i), "must name a category")
		}
	}
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

// statsOptions turns the settings into the tuner's statistics options;
// seed is the experiment file's seed, used when stats.seed is not set.
func (s *settings) statsOptions(seed int64) tuner.StatsOptions {
	st := s.Stats
	if st.Seed != nil {
		seed = *st.Seed
	}
	th := stats.DefaultThresholds()
	th.Alpha, th.Level = st.Alpha, st.Level
	th.Resamples, th.Permutations = st.Resamples, st.Permutations
	th.MinIntervalN, th.MinNonZeroPairs = st.MinCategoryQueries, st.MinNonZeroPairs
	return tuner.StatsOptions{Thresholds: th, Correction: st.Correction, Metrics: st.Metrics, Seed: seed}
}

// policy is the promotion policy from the settings.
func (s *settings) policy(seed int64) promote.Policy {
	return promote.Policy{Guarded: s.Promotion.Guarded, Tolerance: s.Promotion.Tolerance, Stats: s.statsOptions(seed)}
}
