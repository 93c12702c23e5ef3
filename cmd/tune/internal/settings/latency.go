package settings

import (
	"fmt"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// Latency is the latency block: which trials' latency is measured again
// after the sweep (tuner.LatencyOptions). Finalists is the number of best
// trials measured again (0 to tuner.MaxLatencyFinalists; 0: none, only
// the sweep's own live queries are measured), Repeats how often each is
// measured (1 to tuner.MaxLatencyRepeats).
type Latency struct {
	Finalists int `mapstructure:"finalists"`
	Repeats   int `mapstructure:"repeats"`
}

func latencyDefaults() map[string]any {
	return map[string]any{
		"latency.finalists": tuner.DefaultLatencyFinalists,
		"latency.repeats":   tuner.DefaultLatencyRepeats,
	}
}

// Options are the tuner's latency options.
func (l Latency) Options() *tuner.LatencyOptions {
	return &tuner.LatencyOptions{Finalists: l.Finalists, Repeats: l.Repeats}
}

// Validate checks the latency settings against their ranges (fields
// relative to the latency block).
func (l Latency) Validate() experiments.Problems {
	var out experiments.Problems
	for _, p := range l.Options().Check() {
		out = append(out, textProblem("", p))
	}
	return out
}

// parseConstraints parses score.constraints (gate syntax) into
// ParsedConstraints.
func (s *Settings) parseConstraints(add func(field, format string, args ...any)) {
	s.ParsedConstraints = nil
	for i, text := range s.Score.Constraints {
		g, err := verdict.ParseGate(text)
		if err != nil {
			add(fmt.Sprintf("score.constraints[%d]", i), "%v", err)
			continue
		}
		s.ParsedConstraints = append(s.ParsedConstraints, g)
	}
	for _, m := range verdict.GateMetrics(s.ParsedConstraints) {
		if !contains(s.Score.Metrics, m) {
			s.Score.Metrics = append(s.Score.Metrics, m)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
