package plainnum_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"-3", -3, true},
		{"007", 7, true},
		{"+1", 0, false},
		{"1_000", 0, false},
		{"0x10", 0, false},
		{"0o7", 0, false},
		{"0b11", 0, false},
		{" 4", 0, false},
		{"4 ", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"1e3", 0, false},
		{"2.5", 0, false},
		{"99999999999999999999", 0, false},
		{"٣", 0, false}, // a non-ASCII digit
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := plainnum.Int(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Int(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestUint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"12", 12, true},
		{"-1", 0, false},
		{"-0", 0, false},
		{"+1", 0, false},
		{"1_0", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := plainnum.Uint(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Uint(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"1.5", 1.5, true},
		{"-0.25", -0.25, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"1e3", 1000, true},
		{"2.5E-1", 0.25, true},
		{"1e+2", 100, true},
		{"+1", 0, false},
		{"1_000", 0, false},
		{"0x1p3", 0, false},
		{"0x10", 0, false},
		{"Inf", 0, false},
		{"inf", 0, false},
		{"NaN", 0, false},
		{"1e400", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"", 0, false},
		{".", 0, false},
		{"-", 0, false},
		{"e5", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"1.2.3", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := plainnum.Float(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Float(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func FuzzFloat(f *testing.F) {
	for _, s := range []string{"1.5", "-2e3", "0x1p3", "1_0", "+1", ".5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := plainnum.Float(s)
		if !ok {
			return
		}
		for _, c := range s {
			if !(c >= '0' && c <= '9' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+') {
				t.Fatalf("Float(%q) = %v accepted a %q", s, v, c)
			}
		}
		if s[0] == '+' {
			t.Fatalf("Float(%q) accepted a leading plus", s)
		}
	})
}
