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
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// trimBOM drops a byte-order mark from the start of the first line.
func trimBOM(b []byte, line int) []byte {
	if line == 1 {
		return bytes.TrimPrefix(b, bom)
	}
	return b
}
