package trec

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestShortDecimal: the fast path gives strconv.ParseFloat's bits for the
// scores it takes, and declines what it does not parse.
func TestShortDecimal(t *testing.T) {
	tests := []struct {
		in   string
		fast bool
	}{
		{"0", true}, {"-0", true}, {"-0.0", true}, {"1", true}, {"12.5", true}, {".5", true}, {"5.", true},
		{"0.1", true}, {"0.3", true}, {"-1.25", true}, {"123456789012345", true}, {"0.000000000000001", true},
		{"1.2345678901234", true}, {"0.0000000000000000000001", true}, {"9.99999999999999", true},
		{"1234567890123456", false}, {"0.00000000000000000000001", false}, {"0.0000000000000001", true}, {"1.0000000000000001", false}, {"1e5", false}, {"+1", false},
		{".", false}, {"-", false}, {"1.2.3", false}, {"--1", false}, {"1-", false}, {"abc", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, ok := shortDecimal([]byte(tc.in))
			if ok != tc.fast {
				t.Fatalf("shortDecimal(%q) ok = %v, want %v", tc.in, ok, tc.fast)
			}
			want, err := strconv.ParseFloat(tc.in, 64)
			if ok && (err != nil || math.Float64bits(v) != math.Float64bits(want)) {
				t.Errorf("shortDecimal(%q) = %v (%x), strconv %v (%x, %v)", tc.in, v, math.Float64bits(v), want, math.Float64bits(want), err)
			}
			got, gok := parseDecimal([]byte(tc.in))
			if gok != (err == nil) || gok && math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("parseDecimal(%q) = %v, %v; strconv %v, %v", tc.in, got, gok, want, err)
			}
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 { // random scores written as run files write them
		x := rng.Float64() * math.Pow(10, float64(rng.IntN(8)-4))
		for _, s := range []string{strconv.FormatFloat(x, 'f', rng.IntN(12), 64), strconv.FormatFloat(-x, 'f', -1, 64)} {
			want, _ := strconv.ParseFloat(s, 64)
			if got, ok := parseDecimal([]byte(s)); !ok || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("parseDecimal(%q) = %v, %v; want %v", s, got, ok, want)
			}
		}
	}
}
