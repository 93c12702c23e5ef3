package paramtext_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/paramtext"
)

func TestShort(t *testing.T) {
	for in, want := range map[string]string{
		"fusion.k": "k", "fusion.method": "method", "fusion.weights.bm25": "w.bm25", "fusion.weights.dense": "w.dense",
		"chunk.size": "chunk.size", "depth": "depth", "retrievers": "retrievers", "custom.boost": "custom.boost",
	} {
		if got := paramtext.Short(in); got != want {
			t.Errorf("Short(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExactAndRounded(t *testing.T) {
	for _, tc := range []struct {
		name          string
		v             any
		exact, reader string
	}{
		{"whole", 60.0, "60", "60"},
		{"large whole", 1000.0, "1000", "1000"},
		{"int", 20, "20", "20"},
		{"short fraction", 0.35, "0.35", "0.35"},
		{"sampled weight", 0.9738285182219153, "0.9738285182219153", "0.974"},
		{"rounds up", 0.99951, "0.99951", "1"},
		{"small", 0.000123456, "0.000123456", "0.000123"},
		{"large fraction", 123.456, "123.456", "123"},
		{"huge fraction", 123456.7, "123456.7", "123000"},
		{"negative", -0.123456, "-0.123456", "-0.123"},
		{"string", "rrf", "rrf", "rrf"},
		{"strings", []string{"bm25", "dense"}, "bm25+dense", "bm25+dense"},
		{"decoded list", []any{"bm25", 0.123456}, "bm25+0.123456", "bm25+0.123"},
		{"bool", true, "true", "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paramtext.Exact(tc.v); got != tc.exact {
				t.Errorf("Exact(%v) = %q, want %q", tc.v, got, tc.exact)
			}
			if got := paramtext.Rounded(tc.v); got != tc.reader {
				t.Errorf("Rounded(%v) = %q, want %q", tc.v, got, tc.reader)
			}
		})
	}
}

func TestFloat(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want float64
		ok   bool
	}{{60.0, 60, true}, {7, 7, true}, {int64(8), 8, true}, {float32(0.5), 0.5, true}, {"60", 0, false}, {nil, 0, false}} {
		if got, ok := paramtext.Float(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("Float(%#v) = %v, %v, want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
