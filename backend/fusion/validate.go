package fusion

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// FieldError is one problem found by Params.Validate: the field it concerns
// (the JSON/YAML name, e.g. "k" or "weights.dense") and what is wrong.
type FieldError struct {
	Field   string
	Problem string
}

// Error returns "field: problem".
func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

// ValidationError lists every problem of a Params value, in field order.
type ValidationError struct {
	Problems []*FieldError
}

// Error returns "fusion params: " followed by every problem, separated by
// "; ".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "fusion params: " + strings.Join(parts, "; ")
}

// Unwrap returns the problems, so errors.As finds each *FieldError.
func (e *ValidationError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// MaxK is the largest RRF constant k. Beyond it 1/(k+rank) no longer tells
// ranks apart in float64 sums (at k = 1e308 every score is the same), and
// no published tuning goes past a few thousand.
const MaxK = 1e6

// MaxWeight is the largest retriever weight. Only the ratios of weights
// matter; past it weighted sums of scores can overflow to +Inf.
const MaxWeight = 1e6

// Methods lists the valid fusion methods.
var Methods = []Method{RRF, Linear, CombSUM, CombMNZ}

// Normalizations lists the valid score normalizations.
var Normalizations = []Normalization{MinMax, ZScore, L2, None}

// Validate reports every problem of p at once as a *ValidationError, or
// nil. Zero fields mean "not set" and are valid, so both a full
// configuration (after WithDefaults) and a partial per-request override
// validate. Rules: method and normalization must be known; k must be > 0
// and at most MaxK; depth must be >= 0; every weight must be >= 0 and at
// most MaxWeight.
func (p Params) Validate() error {
	var probs []*FieldError
	add := func(field, format string, args ...any) {
		probs = append(probs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if p.Method != "" && !knownMethod(p.Method) {
		add("method", "unknown method %q (want one of %s)", p.Method, join(Methods))
	}
	if p.K < 0 || math.IsNaN(p.K) || math.IsInf(p.K, 0) || p.K > MaxK {
		add("k", "must be > 0 and at most %g (got %v)", MaxK, p.K)
	}
	if p.Normalization != "" && !knownNormalization(p.Normalization) {
		add("normalization", "unknown normalization %q (want one of %s)", p.Normalization, join(Normalizations))
	}
	if p.Depth < 0 {
		add("depth", "must be >= 0 (got %d)", p.Depth)
	}
	names := make([]string, 0, len(p.Weights))
	for name := range p.Weights {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w := p.Weights[name]
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) || w > MaxWeight {
			add(fmt.Sprintf("weights.%s", name), "must be >= 0 and at most %g (got %v)", MaxWeight, w)
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Problems: probs}
}

func knownMethod(m Method) bool {
	for _, k := range Methods {
		if m == k {
			return true
		}
	}
	return false
}

func knownNormalization(n Normalization) bool {
	for _, k := range Normalizations {
		if n == k {
			return true
		}
	}
	return false
}

func join[T ~string](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = string(x)
	}
	return strings.Join(parts, ", ")
}
