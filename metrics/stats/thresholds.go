package stats

// Thresholds are the sample-size limits and resampling sizes every test of
// this package reads. Start from DefaultThresholds and overlay.
type Thresholds struct {
	// MinNonZeroPairs is the fewest non-zero paired differences for which
	// the Wilcoxon test reports a p-value (below it: a warning, no p).
	MinNonZeroPairs int
	// ExactMaxN: the Wilcoxon test uses the exact null distribution when
	// there are fewer than ExactMaxN non-zero pairs and no tied absolute
	// differences (as R's wilcox.test does with n < 50); the normal
	// approximation otherwise.
	ExactMaxN int
	// ContinuityCorrection applies the ±0.5 continuity correction to the
	// Wilcoxon normal approximation (R's default, correct = TRUE).
	ContinuityCorrection bool
	// MinIntervalN is the fewest values a bootstrap interval of a mean is
	// computed for (a category with fewer queries gets a warning instead).
	MinIntervalN int
	// Resamples is the number of bootstrap resamples (at least
	// MinResamples).
	Resamples int
	// Permutations is the number of random sign flips of the randomization
	// test when it is not enumerated exactly.
	Permutations int
	// ExactRandomizationMaxN: with at most this many pairs the
	// randomization test enumerates all 2^n sign flips (negative: never).
	ExactRandomizationMaxN int
	// Level is the confidence level of intervals (e.g. 0.95).
	Level float64
	// Alpha is the significance level after correction.
	Alpha float64
}

// Default thresholds.
const (
	DefaultMinNonZeroPairs        = 6
	DefaultExactMaxN              = 50
	DefaultMinIntervalN           = 5
	DefaultResamples              = 2000
	DefaultPermutations           = 10000
	DefaultExactRandomizationMaxN = 16
	DefaultLevel                  = 0.95
	DefaultAlpha                  = 0.05
	// MinResamples is the fewest bootstrap resamples ever drawn.
	MinResamples = 1000
	// MaxResamples and MaxPermutations bound the resampling sizes a user
	// may ask for: 50 and 10 times the defaults, far past where more
	// resamples change a reported digit (a p-value resolves to 1e-5), yet
	// a sweep's statistics stay within seconds to minutes.
	MaxResamples    = 100_000
	MaxPermutations = 100_000
	// MinPermutations is the fewest random sign flips a user may ask for.
	MinPermutations = 100
)

// DefaultThresholds returns the defaults above, with the continuity
// correction on.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MinNonZeroPairs:        DefaultMinNonZeroPairs,
		ExactMaxN:              DefaultExactMaxN,
		ContinuityCorrection:   true,
		MinIntervalN:           DefaultMinIntervalN,
		Resamples:              DefaultResamples,
		Permutations:           DefaultPermutations,
		ExactRandomizationMaxN: DefaultExactRandomizationMaxN,
		Level:                  DefaultLevel,
		Alpha:                  DefaultAlpha,
	}
}

// WithDefaults fills zero fields from DefaultThresholds (a zero value means
// "not set"; ContinuityCorrection is taken as given).
func (t Thresholds) WithDefaults() Thresholds {
	d := DefaultThresholds()
	if t.MinNonZeroPairs <= 0 {
		t.MinNonZeroPairs = d.MinNonZeroPairs
	}
	if t.ExactMaxN <= 0 {
		t.ExactMaxN = d.ExactMaxN
	}
	if t.MinIntervalN <= 0 {
		t.MinIntervalN = d.MinIntervalN
	}
	switch {
	case t.Resamples == 0:
		t.Resamples = d.Resamples
	case t.Resamples < MinResamples:
		t.Resamples = MinResamples
	}
	if t.Permutations <= 0 {
		t.Permutations = d.Permutations
	}
	switch {
	case t.ExactRandomizationMaxN == 0:
		t.ExactRandomizationMaxN = d.ExactRandomizationMaxN
	case t.ExactRandomizationMaxN < 0:
		t.ExactRandomizationMaxN = 0 // never enumerate
	}
	if !(t.Level > 0 && t.Level < 1) {
		t.Level = d.Level
	}
	if !(t.Alpha > 0 && t.Alpha < 1) {
		t.Alpha = d.Alpha
	}
	return t
}
