package experiments

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Params are a trial's parameters, keyed by flattened dotted names such as
// "fusion.k" or "fusion.weights.bm25". Numbers are float64, lists []string.
type Params map[string]any

// Clone returns a shallow copy of p.
func (p Params) Clone() Params {
	out := make(Params, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// Overlay returns p with every key of o set to o's value.
func (p Params) Overlay(o Params) Params {
	out := p.Clone()
	for k, v := range o {
		out[k] = v
	}
	return out
}

// Keys returns the parameter names, sorted.
func (p Params) Keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String renders p as "k=v,k2=v2" with sorted keys.
func (p Params) String() string {
	parts := make([]string, 0, len(p))
	for _, k := range p.Keys() {
		parts = append(parts, k+"="+FormatValue(p[k]))
	}
	return strings.Join(parts, ",")
}

// FormatValue renders a parameter value compactly: 60 not 60.000000.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []string:
		return strings.Join(x, "+")
	case []any:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = FormatValue(e)
		}
		return strings.Join(s, "+")
	}
	return fmt.Sprint(v)
}

// Kind is the type of a parameter's value.
type Kind int

// Parameter kinds.
const (
	KindFloat Kind = iota
	KindInt
	KindString
	KindStrings
	KindBool
)

func (k Kind) String() string {
	return [...]string{"a number", "an integer", "a string", "a list of strings", "true or false"}[k]
}

// ParamSpec describes one known parameter. A parameter is index-time
// (IndexTime), query-time and replayable (Replayable), or query-time but
// not replayable: retrievers, which changes the candidate lists themselves.
type ParamSpec struct {
	Name string
	Kind Kind
	// IndexTime parameters change the index: changing one means
	// re-indexing and restarting the backend.
	IndexTime bool
	// Replayable parameters are applied after retrieval: the tuner fuses
	// a trial that changes only them offline, from candidate lists
	// collected once (depth from the deepest lists), without a restart.
	Replayable bool
	// Check returns "" when v (already of the right kind) is acceptable,
	// else what was expected.
	Check func(v any) string
	Doc   string
	// Engine names the backend kind whose own parameter this is
	// ("weaviate"); other kinds reject it. Empty for the common parameters.
	Engine string
}

// CustomPrefix starts free-form parameters that fusiontune passes through,
// unchecked, to external backends' config templates ("custom.boost": 2).
const CustomPrefix = "custom."

// WeightPrefix starts per-retriever fusion weights ("fusion.weights.bm25").
const WeightPrefix = "fusion.weights."

var paramSpecs = []ParamSpec{
	{Name: "fusion.method", Kind: KindString, Replayable: true, Check: oneOf("rrf", "linear", "combsum", "combmnz"), Doc: "fusion method"},
	{Name: "fusion.k", Kind: KindFloat, Replayable: true, Check: upTo(fusion.MaxK), Doc: "RRF rank constant (> 0, at most 1e6)"},
	{Name: "fusion.normalization", Kind: KindString, Replayable: true, Check: oneOf("min_max", "z_score", "l2", "none"), Doc: "score normalization"},
	{Name: "depth", Kind: KindInt, Replayable: true, Check: positive, Doc: "candidates per retriever"},
	{Name: "min_score", Kind: KindFloat, Replayable: true, Check: nil, Doc: "no-results threshold on the fused score (any finite number)"},
	{Name: "bm25.min_score", Kind: KindFloat, Replayable: true, Check: nil, Doc: "floor on BM25 candidate scores (any finite number; BM25 scores are >= 0)"},
	{Name: "dense.min_score", Kind: KindFloat, Replayable: true, Check: nil, Doc: "floor on dense candidate cosines (any finite number; cosines are in [-1, 1])"},
	{Name: "retrievers", Kind: KindStrings, Check: retrieverList, Doc: "retrievers to fuse"},
	{Name: "chunk.size", Kind: KindInt, IndexTime: true, Check: nonNegative, Doc: "chunk size in tokens (0 = whole documents)"},
	{Name: "chunk.overlap", Kind: KindInt, IndexTime: true, Check: nonNegative, Doc: "chunk overlap in tokens"},
	{Name: "dense.model", Kind: KindString, IndexTime: true, Check: nonEmpty, Doc: "embedder spec, e.g. lsa-256"},
	{Name: "bm25.k1", Kind: KindFloat, IndexTime: true, Check: nonNegative, Doc: "BM25 term-frequency saturation"},
	{Name: "bm25.b", Kind: KindFloat, IndexTime: true, Check: unitInterval, Doc: "BM25 length normalization"},
	// Weaviate's own names (the weaviate kind; other kinds reject them).
	// Replayable: the weaviate kind collects each leg alone and the
	// tuner fuses them in-process by Weaviate's formula
	// (fusion.FormulaWeaviate).
	{Name: "alpha", Kind: KindFloat, Replayable: true, Check: unitInterval, Doc: "Weaviate hybrid alpha: the vector leg's weight, 0 to 1 (weaviate kind)", Engine: "weaviate"},
	{Name: "fusionType", Kind: KindString, Replayable: true, Check: oneOf("rankedFusion", "relativeScoreFusion"), Doc: "Weaviate hybrid fusion (weaviate kind)", Engine: "weaviate"},
}

// LookupParam returns the spec of a known parameter. Per-retriever weights
// ("fusion.weights.<retriever>") are known for any retriever name; custom.*
// keys have no spec.
func LookupParam(name string) (ParamSpec, bool) {
	for _, s := range paramSpecs {
		if s.Name == name {
			return s, true
		}
	}
	if r, ok := strings.CutPrefix(name, WeightPrefix); ok && r != "" && !strings.Contains(r, ".") {
		return ParamSpec{Name: name, Kind: KindFloat, Replayable: true, Check: weight, Doc: "fusion weight of retriever " + r + " (0 to 1e6)"}, true
	}
	return ParamSpec{}, false
}

// ParamNames lists the known parameter names (weights as a pattern).
func ParamNames() []string {
	names := make([]string, 0, len(paramSpecs)+2)
	for _, s := range paramSpecs {
		names = append(names, s.Name)
	}
	return append(names, WeightPrefix+"<retriever>", CustomPrefix+"<name>")
}

// IsIndexTime reports whether changing name requires re-indexing.
func IsIndexTime(name string) bool {
	s, ok := LookupParam(name)
	return ok && s.IndexTime
}

// Replayable reports whether a trial changing name can be fused offline
// from candidate lists collected under other values (ParamSpec.Replayable):
// fusion.method, fusion.k, fusion.normalization, depth, min_score,
// bm25.min_score, dense.min_score and every
// name starting with WeightPrefix (a weight, even one LookupParam refuses,
// such as "fusion.weights.a.b"). Index-time parameters, retrievers,
// custom.* and unknown names are not replayable.
func Replayable(name string) bool {
	if s, ok := LookupParam(name); ok {
		return s.Replayable
	}
	return strings.HasPrefix(name, WeightPrefix)
}

// IndexKey identifies the index-time settings of p: trials with equal keys
// share one index.
func (p Params) IndexKey() string {
	var parts []string
	for _, k := range p.Keys() {
		if IsIndexTime(k) {
			parts = append(parts, k+"="+FormatValue(p[k]))
		}
	}
	return strings.Join(parts, ",")
}

// checkValue converts a decoded value to the spec's kind and checks it. It
// returns the normalized value or what was expected.
func (s ParamSpec) checkValue(v any) (any, string) {
	switch s.Kind {
	case KindFloat, KindInt:
		f, ok := v.(float64)
		if !ok {
			return nil, fmt.Sprintf("must be %s (got %s)", s.Kind, describe(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Sprintf("must be a finite number (got %v)", f)
		}
		if s.Kind == KindInt && f != math.Trunc(f) {
			return nil, fmt.Sprintf("must be an integer (got %v)", f)
		}
	case KindString:
		if _, ok := v.(string); !ok {
			return nil, fmt.Sprintf("must be a string (got %s)", describe(v))
		}
	case KindBool:
		if _, ok := v.(bool); !ok {
			return nil, fmt.Sprintf("must be true or false (got %s)", describe(v))
		}
	case KindStrings:
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Sprintf("must be a list of strings (got %s)", describe(v))
		}
		out := make([]string, len(list))
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Sprintf("must be a list of strings (item %d is %s)", i, describe(e))
			}
			out[i] = s
		}
		v = out
	}
	if s.Check != nil {
		if msg := s.Check(v); msg != "" {
			return nil, msg
		}
	}
	return v, ""
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case float64:
		return FormatValue(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func oneOf(valid ...string) func(any) string {
	return func(v any) string {
		s := v.(string)
		for _, ok := range valid {
			if s == ok {
				return ""
			}
		}
		return fmt.Sprintf("must be one of %s (got %q)", strings.Join(valid, ", "), s)
	}
}

func positive(v any) string {
	if f := v.(float64); f <= 0 {
		return fmt.Sprintf("must be > 0 (got %v)", FormatValue(f))
	}
	return ""
}

// upTo checks 0 < v <= max.
func upTo(max float64) func(any) string {
	return func(v any) string {
		if f := v.(float64); f <= 0 || f > max {
			return fmt.Sprintf("must be > 0 and at most %s (got %v)", FormatValue(max), FormatValue(f))
		}
		return ""
	}
}

// weight checks 0 <= v <= fusion.MaxWeight.
func weight(v any) string {
	if f := v.(float64); f < 0 || f > fusion.MaxWeight {
		return fmt.Sprintf("must be >= 0 and at most %s (got %v)", FormatValue(fusion.MaxWeight), FormatValue(f))
	}
	return ""
}

func nonNegative(v any) string {
	if f := v.(float64); f < 0 {
		return fmt.Sprintf("must be >= 0 (got %v)", FormatValue(f))
	}
	return ""
}

func unitInterval(v any) string {
	if f := v.(float64); f < 0 || f > 1 {
		return fmt.Sprintf("must be between 0 and 1 (got %v)", FormatValue(f))
	}
	return ""
}

func nonEmpty(v any) string {
	if strings.TrimSpace(v.(string)) == "" {
		return "must not be empty"
	}
	return ""
}

func retrieverList(v any) string {
	list := v.([]string)
	if len(list) == 0 {
		return "must name at least one retriever (bm25, dense)"
	}
	seen := map[string]bool{}
	for _, r := range list {
		if r != "bm25" && r != "dense" {
			return fmt.Sprintf("unknown retriever %q (want bm25 or dense)", r)
		}
		if seen[r] {
			return fmt.Sprintf("retriever %q listed twice", r)
		}
		seen[r] = true
	}
	return ""
}
