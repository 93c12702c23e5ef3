package metrics

import "fmt"

// Defaults of Options.
const (
	// DefaultThreshold is the lowest grade the binary measures count as
	// relevant (trec_eval -l1).
	DefaultThreshold = 1
	// DefaultMaxGrade is the top of the grading scale (0..3).
	DefaultMaxGrade = 3
)

// Options are the evaluation settings shared by all measures.
type Options struct {
	// Threshold is the lowest grade counted as relevant by the binary
	// measures (P, Recall, F1, MRR, AP, R-Precision, Success).
	Threshold int
	// MaxGrade is gmax, the top grade: ERR's stop probability is
	// (2^g-1)/2^gmax, Exact_Precision counts grades >= gmax. Grades above it
	// count as gmax in ERR.
	MaxGrade int
}

// DefaultOptions returns the default Options.
func DefaultOptions() Options {
	return Options{Threshold: DefaultThreshold, MaxGrade: DefaultMaxGrade}
}

// Validate reports settings no measure can use.
func (o Options) Validate() error {
	if o.Threshold < 1 {
		return fmt.Errorf("metrics options: threshold must be >= 1 (got %d)", o.Threshold)
	}
	if o.MaxGrade < 1 {
		return fmt.Errorf("metrics options: max grade must be >= 1 (got %d)", o.MaxGrade)
	}
	return nil
}

// Judgments maps document ids to grades for one query.
type Judgments map[string]int
