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
	// (2^g-1)/2^gmax. Grades above it count as gmax in ERR.
	MaxGrade int
	// Strong is the lowest grade the Strong_ measures count (Strong_Precision,
	// Strong_Success, MRR_Strong, Recall_Strong); 0 means DefaultStrong(MaxGrade).
	Strong int `json:",omitempty"`
	// Exact is the lowest grade the Exact_ measures count (Exact_Precision,
	// Exact_Success, MRR_Exact, Recall_Exact); 0 means MaxGrade.
	Exact int `json:",omitempty"`
}

// DefaultStrong is the strong threshold of a scale whose top grade is max:
// ceil(2*max/3), so 2 on the 0-3 scale, 3 on 0-4, 1 on 0-1.
func DefaultStrong(max int) int { return (2*max + 2) / 3 }

// StrongGrade returns the strong threshold in effect: Strong, else
// DefaultStrong(MaxGrade).
func (o Options) StrongGrade() int {
	if o.Strong > 0 {
		return o.Strong
	}
	return DefaultStrong(o.maxGrade())
}

// ExactGrade returns the exact threshold in effect: Exact, else MaxGrade.
func (o Options) ExactGrade() int {
	if o.Exact > 0 {
		return o.Exact
	}
	return o.maxGrade()
}

func (o Options) maxGrade() int {
	if o.MaxGrade <= 0 {
		return DefaultMaxGrade
	}
	return o.MaxGrade
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
	if o.Strong < 0 || o.Exact < 0 {
		return fmt.Errorf("metrics options: strong and exact thresholds must be >= 0, 0 for the default (got %d, %d)", o.Strong, o.Exact)
	}
	if s, e := o.StrongGrade(), o.ExactGrade(); s > e {
		return fmt.Errorf("metrics options: strong threshold %d is above exact threshold %d", s, e)
	}
	return nil
}

// Judgments maps document ids to grades for one query.
type Judgments map[string]int
