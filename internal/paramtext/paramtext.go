package paramtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// WeightPrefix starts a retriever's fusion weight parameter
// ("fusion.weights.bm25").
const WeightPrefix = "fusion.weights."

// Digits is how many significant digits Rounded keeps.
const Digits = 3

// Short is the name a generated trial name gives parameter name: a
// retriever's weight "w.<retriever>", any other fusion setting without
// "fusion." ("k", "method"), every other name as it is ("chunk.size").
func Short(name string) string {
	switch {
	case strings.HasPrefix(name, WeightPrefix):
		return "w." + strings.TrimPrefix(name, WeightPrefix)
	case strings.HasPrefix(name, "fusion."):
		return strings.TrimPrefix(name, "fusion.")
	}
	return name
}

// Exact writes a parameter value compactly and exactly: a number in its
// shortest form (60, 0.35), a list joined by "+" (bm25+dense), anything
// else as fmt prints it.
func Exact(v any) string {
	return format(v, func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
}

// Rounded writes a parameter value for reading: as Exact, except that a
// number that is not a whole one keeps Digits significant digits, without
// an exponent (0.974, 0.000123, 123); whole numbers stay whole (1000).
func Rounded(v any) string { return format(v, Number) }

// Number writes x as Rounded does.
func Number(x float64) string {
	if x == math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', Digits, 64), 64)
	if err != nil {
		r = x
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// format writes v with num for its numbers.
func format(v any, num func(float64) string) string {
	switch x := v.(type) {
	case float64:
		return num(x)
	case []string:
		return strings.Join(x, "+")
	case []any:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = format(e, num)
		}
		return strings.Join(s, "+")
	}
	return fmt.Sprint(v)
}

// Float is v as a number, when it is one (a float64 as JSON decodes
// numbers, or an int).
func Float(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
