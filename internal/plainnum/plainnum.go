package plainnum

import (
	"math"
	"strconv"
)

// Int parses s as a plain decimal integer: an optional '-' and one or
// more ASCII digits, within the range of int. It reports false for
// anything else.
func Int(s string) (int, bool) {
	if !isInt(s) {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Uint parses s as a plain non-negative decimal integer: one or more ASCII
// digits, within the range of int (no sign at all).
func Uint(s string) (int, bool) {
	if s == "" || s[0] == '-' {
		return 0, false
	}
	return Int(s)
}

// Float parses s as a plain finite decimal number: an optional '-',
// digits with an optional fraction (".5" and "5." included), and an
// optional exponent (e or E, an optional sign, digits). It reports false
// for anything else, and for a value out of the range of float64.
func Float(s string) (float64, bool) {
	if !isFloat(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func isInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	return s != "" && digits(s) == len(s)
}

func isFloat(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	n := digits(s)
	s = s[n:]
	if len(s) > 0 && s[0] == '.' {
		f := digits(s[1:])
		n += f
		s = s[1+f:]
	}
	if n == 0 {
		return false // no digit before the exponent
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		e := digits(s)
		if e == 0 {
			return false
		}
		s = s[e:]
	}
	return s == ""
}

// digits returns the number of ASCII digits at the start of s.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
