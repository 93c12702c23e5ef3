package backend

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/paramtext"
)

// The typed accessors below read a parameter value of one kind, as
// experiment files decode it (numbers float64, lists []any) or as Go
// callers give it (int, int64, []string). Every layer reads values through
// them; a problem is worded as experiment files word it ("must be a
// number (got "60")"), and a layer that words its own refusals only
// looks at whether there is one.

// FloatValue returns v as a float64: a float64 (NaN and infinities
// included), int or int64 value.
func FloatValue(v any) (float64, string) {
	switch x := v.(type) {
	case float64:
		return x, ""
	case int:
		return float64(x), ""
	case int64:
		return float64(x), ""
	}
	return 0, KindProblem(KindFloat, v)
}

// IntValue returns v as an int: an int, or a number (FloatValue) holding
// an integer in the range of int64.
func IntValue(v any) (int, string) {
	if i, ok := v.(int); ok {
		return i, ""
	}
	f, msg := FloatValue(v)
	if msg != "" {
		return 0, KindProblem(KindInt, v)
	}
	// -2^63 <= f < 2^63: the range of int64 (int is 64 bits wide here).
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, fmt.Sprintf("must be an integer (got %s)", Describe(v))
	}
	return int(f), ""
}

// StringValue returns v as a string.
func StringValue(v any) (string, string) {
	s, ok := v.(string)
	if !ok {
		return "", KindProblem(KindString, v)
	}
	return s, ""
}

// BoolValue returns v as a bool.
func BoolValue(v any) (bool, string) {
	b, ok := v.(bool)
	if !ok {
		return false, KindProblem(KindBool, v)
	}
	return b, ""
}

// StringsValue returns v, a []string or a []any of strings, as a new
// non-nil []string.
func StringsValue(v any) ([]string, string) {
	switch x := v.(type) {
	case []string:
		if x == nil {
			return []string{}, ""
		}
		return slices.Clone(x), ""
	case []any:
		list := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Sprintf("must be a list of strings (item %d is %s)", i, Describe(e))
			}
			list[i] = s
		}
		return list, ""
	}
	return nil, KindProblem(KindStrings, v)
}

// KindProblem says that v is not of kind k: "must be a number (got
// "60")".
func KindProblem(k Kind, v any) string {
	return fmt.Sprintf("must be %s (got %s)", k, Describe(v))
}

// Describe names a parameter value in a problem: numbers and booleans as
// they are, strings quoted, null, "a list", "an object".
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case float64:
		return FormatValue(x)
	case int, int64:
		return fmt.Sprint(x)
	case bool:
		return strconv.FormatBool(x)
	case []any, []string:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// FormatValue renders a parameter value compactly: 60 not 60.000000,
// lists joined by "+" (paramtext.Exact).
func FormatValue(v any) string { return paramtext.Exact(v) }
