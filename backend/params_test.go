package backend_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
)

// TestParamTable checks the table's invariants: one entry a name, every
// name known, a kind and a doc line each, no parameter both index-time
// and replayable, engine config keys common to the kinds.
func TestParamTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range backend.ParamTable() {
		if seen[p.Name] {
			t.Errorf("%s: twice in the table", p.Name)
		}
		seen[p.Name] = true
		if got, ok := backend.LookupParam(p.Name); !ok || got.Name != p.Name || !backend.KnownParam(p.Name) {
			t.Errorf("%s: LookupParam %v %v, KnownParam %v", p.Name, got.Name, ok, backend.KnownParam(p.Name))
		}
		if p.Doc == "" || p.Kind < backend.KindFloat || p.Kind > backend.KindBool {
			t.Errorf("%s: kind %d, doc %q", p.Name, p.Kind, p.Doc)
		}
		if p.IndexTime && p.Replayable {
			t.Errorf("%s: both index-time and replayable", p.Name)
		}
		if p.ConfigKey && p.Engine != "" {
			t.Errorf("%s: an engine config key of the %s kind", p.Name, p.Engine)
		}
		if p.Values != nil && p.Kind != backend.KindString {
			t.Errorf("%s: values for %s", p.Name, p.Kind)
		}
	}
	names := backend.ParamNames()
	if len(names) != len(seen)+2 || names[len(names)-2] != backend.WeightPattern || names[len(names)-1] != backend.CustomPattern {
		t.Errorf("ParamNames = %q", names)
	}
}

func TestLookupParam(t *testing.T) {
	tests := []struct {
		name       string
		ok         bool
		kind       backend.Kind
		indexTime  bool
		replayable bool
		configKey  bool
		engine     string
	}{
		{name: "fusion.method", ok: true, kind: backend.KindString, replayable: true},
		{name: "fusion.k", ok: true, kind: backend.KindFloat, replayable: true},
		{name: "depth", ok: true, kind: backend.KindInt, replayable: true},
		{name: "retrievers", ok: true, kind: backend.KindStrings},
		{name: "chunk.size", ok: true, kind: backend.KindInt, indexTime: true},
		{name: "dense.model", ok: true, kind: backend.KindString, indexTime: true},
		{name: "alpha", ok: true, kind: backend.KindFloat, replayable: true, engine: "weaviate"},
		{name: "fusionType", ok: true, kind: backend.KindString, replayable: true, engine: "weaviate"},
		{name: "fusion.depth", ok: true, kind: backend.KindInt, replayable: true, configKey: true},
		{name: "passage", ok: true, kind: backend.KindBool, configKey: true},
		{name: "fusion.weights.bm25", ok: true, kind: backend.KindFloat, replayable: true},
		{name: "fusion.weights.splade", ok: true, kind: backend.KindFloat, replayable: true},
		{name: "fusion.weights.a.b"},
		{name: "fusion.weights."},
		{name: "fusion.weights"},
		{name: "custom.boost"},
		{name: "Fusion.k"},
		{name: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := backend.LookupParam(tt.name)
			if ok != tt.ok {
				t.Fatalf("LookupParam(%q) ok = %v, want %v", tt.name, ok, tt.ok)
			}
			if !ok {
				return
			}
			if p.Kind != tt.kind || p.IndexTime != tt.indexTime || p.Replayable != tt.replayable || p.ConfigKey != tt.configKey || p.Engine != tt.engine {
				t.Errorf("got kind %v index-time %v replayable %v config key %v engine %q", p.Kind, p.IndexTime, p.Replayable, p.ConfigKey, p.Engine)
			}
		})
	}
}

// TestParse lists Parse's answers, the words experiment files' problems
// carry.
func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		param string
		v     any
		want  any
		msg   string
	}{
		{"a float", "fusion.k", 60.0, 60.0, ""},
		{"an int is a number", "fusion.k", 60, 60.0, ""},
		{"an integer", "depth", 50.0, 50.0, ""},
		{"a string", "fusion.method", "linear", "linear", ""},
		{"a list", "retrievers", []any{"dense", "bm25"}, []string{"dense", "bm25"}, ""},
		{"a []string", "retrievers", []string{"bm25"}, []string{"bm25"}, ""},
		{"a bool", "passage", true, true, ""},
		{"a weight", "fusion.weights.bm25", 0.5, 0.5, ""},
		{"a number as a string", "fusion.k", "60", nil, `must be a number (got "60")`},
		{"null", "depth", nil, nil, "must be an integer (got null)"},
		{"not finite", "fusion.k", math.Inf(1), nil, "must be a finite number (got +Inf)"},
		{"NaN", "bm25.b", math.NaN(), nil, "must be a finite number (got NaN)"},
		{"a fraction", "chunk.size", 100.5, nil, "must be an integer (got 100.5)"},
		{"k zero", "fusion.k", 0.0, nil, "must be > 0 and at most 1e+06 (got 0)"},
		{"k too large", "fusion.k", 2e6, nil, "must be > 0 and at most 1e+06 (got 2e+06)"},
		{"depth zero", "depth", 0.0, nil, "must be > 0 (got 0)"},
		{"negative chunk", "chunk.size", -1.0, nil, "must be >= 0 (got -1)"},
		{"b above 1", "bm25.b", 2.0, nil, "must be between 0 and 1 (got 2)"},
		{"empty model", "dense.model", " ", nil, "must not be empty"},
		{"a number for a string", "dense.model", 5.0, nil, "must be a string (got 5)"},
		{"unknown method", "fusion.method", "best", nil, `must be one of rrf, linear, combsum, combmnz (got "best")`},
		{"unknown fusionType", "fusionType", "rrf", nil, `must be one of rankedFusion, relativeScoreFusion (got "rrf")`},
		{"a list item", "retrievers", []any{"bm25", 3.0}, nil, "must be a list of strings (item 1 is 3)"},
		{"not a list", "retrievers", "bm25", nil, `must be a list of strings (got "bm25")`},
		{"an object", "retrievers", map[string]any{}, nil, "must be a list of strings (got an object)"},
		{"no retriever", "retrievers", []any{}, nil, "must name at least one retriever (bm25, dense)"},
		{"unknown retriever", "retrievers", []any{"sparse"}, nil, `unknown retriever "sparse" (want bm25 or dense)`},
		{"a retriever twice", "retrievers", []any{"bm25", "bm25"}, nil, `retriever "bm25" listed twice`},
		{"negative weight", "fusion.weights.dense", -1.0, nil, "must be >= 0 and at most 1e+06 (got -1)"},
		{"a bool as a string", "passage", "yes", nil, `must be true or false (got "yes")`},
		{"a list for a bool", "passage", []any{true}, nil, "must be true or false (got a list)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := backend.LookupParam(tt.param)
			if !ok {
				t.Fatalf("%s: not in the table", tt.param)
			}
			got, msg := p.Parse(tt.v)
			if msg != tt.msg || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%#v) = %#v, %q; want %#v, %q", tt.v, got, msg, tt.want, tt.msg)
			}
		})
	}
}

// TestValueAccessors lists what the typed accessors read and how they
// word the rest.
func TestValueAccessors(t *testing.T) {
	type result struct {
		v   any
		msg string
	}
	read := func(v any, msg string) result { return result{v, msg} }
	tests := []struct {
		name string
		got  result
		want result
	}{
		{"float64", read(backend.FloatValue(1.5)), result{1.5, ""}},
		{"int", read(backend.FloatValue(3)), result{3.0, ""}},
		{"int64", read(backend.FloatValue(int64(4))), result{4.0, ""}},
		{"NaN passes", read(backend.FloatValue(math.NaN())), result{math.NaN(), ""}},
		{"string for a float", read(backend.FloatValue("1")), result{0.0, `must be a number (got "1")`}},
		{"int of a float", read(backend.IntValue(7.0)), result{7, ""}},
		{"int of an int64", read(backend.IntValue(int64(8))), result{8, ""}},
		{"fractional int", read(backend.IntValue(7.5)), result{0, "must be an integer (got 7.5)"}},
		{"int out of range", read(backend.IntValue(1e20)), result{0, "must be an integer (got 1e+20)"}},
		{"infinite int", read(backend.IntValue(math.Inf(-1))), result{0, "must be an integer (got -Inf)"}},
		{"bool for an int", read(backend.IntValue(true)), result{0, "must be an integer (got true)"}},
		{"string", read(backend.StringValue("x")), result{"x", ""}},
		{"list for a string", read(backend.StringValue([]string{"x"})), result{"", "must be a string (got a list)"}},
		{"bool", read(backend.BoolValue(false)), result{false, ""}},
		{"null for a bool", read(backend.BoolValue(nil)), result{false, "must be true or false (got null)"}},
		{"nil []string", read(backend.StringsValue([]string(nil))), result{[]string{}, ""}},
		{"[]any", read(backend.StringsValue([]any{"a"})), result{[]string{"a"}, ""}},
		{"struct for a list", read(backend.StringsValue(struct{}{})), result{[]string(nil), "must be a list of strings (got a struct {})"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			same := reflect.DeepEqual(tt.got, tt.want)
			if f, ok := tt.want.v.(float64); ok && math.IsNaN(f) {
				g, _ := tt.got.v.(float64)
				same = math.IsNaN(g) && tt.got.msg == tt.want.msg
			}
			if !same {
				t.Errorf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
}

func TestFormatValue(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{60.0, "60"},
		{0.25, "0.25"},
		{1e6, "1e+06"},
		{[]string{"bm25", "dense"}, "bm25+dense"},
		{[]any{"bm25", 2.0}, "bm25+2"},
		{"rrf", "rrf"},
		{true, "true"},
	} {
		if got := backend.FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func ExampleParam_Parse() {
	p, _ := backend.LookupParam(backend.ParamFusionK)
	v, _ := p.Parse(60)
	_, problem := p.Parse(-1.0)
	fmt.Printf("%s (%s, replayable %v): %v; -1: %s\n", p.Name, p.Kind, p.Replayable, v, problem)
	// Output: fusion.k (a number, replayable true): 60; -1: must be > 0 and at most 1e+06 (got -1)
}
