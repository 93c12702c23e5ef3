package trec

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// bom is the UTF-8 byte-order mark. Every reader of this project accepts
// it at the very start of a file and skips it (a file saved by an editor
// that writes one reads the same as without); anywhere else it is an
// ordinary character.
var bom = []byte("\ufeff")

// checkID returns why b is not a usable query or document id: bytes that
// are not UTF-8, or a control character (C0, DEL) that would not survive
// being written back to a run, qrels or JSON file. It returns "" for a good
// id.
func checkID(b []byte) string {
	if !utf8.Valid(b) {
		return "is not valid UTF-8"
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("holds the control character %q", rune(c))
		}
	}
	return ""
}

// parseDecimal parses a score written as a plain decimal number (digits,
// an optional sign, point and exponent). strconv.ParseFloat alone would
// also take "1_000", hexadecimal floats ("0x1p3"), "Inf" and "NaN"; none
// of them is a score trec_eval reads the same way.
func parseDecimal(b []byte) (float64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if v, ok := shortDecimal(b); ok {
		return v, true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(unsafeString(b), 64) // b is not kept
	return v, err == nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// shortDecimal parses the common score `-?digits[.digits]` of at most 15
// significant digits and 22 decimals without strconv: the digits as an integer and a power of ten
// are both exact in a float64, so their quotient is the correctly
// rounded value strconv.ParseFloat gives. ok is false for anything else
// (an exponent, a sign '+', more digits), which parseDecimal hands to
// strconv.
func shortDecimal(b []byte) (v float64, ok bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var mant uint64
	digits, sig, frac, dot := 0, 0, 0, false // sig: digits from the first non-zero one
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if mant != 0 {
				sig++
			}
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || sig > 15 || frac >= len(pow10) {
		return 0, false
	}
	v = float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// trimBOM drops a byte-order mark from the start of the first line.
func trimBOM(b []byte, line int) []byte {
	if line == 1 {
		return bytes.TrimPrefix(b, bom)
	}
	return b
}
