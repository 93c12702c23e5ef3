package experiments

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/suggest"
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

// FormatValue renders a parameter value compactly: 60 not 60.000000
// (backend.FormatValue).
func FormatValue(v any) string { return backend.FormatValue(v) }

// Kind is the type of a parameter's value (backend.Kind).
type Kind = backend.Kind

// Parameter kinds.
const (
	KindFloat   = backend.KindFloat
	KindInt     = backend.KindInt
	KindString  = backend.KindString
	KindStrings = backend.KindStrings
	KindBool    = backend.KindBool
)

// ParamSpec describes one known parameter: an entry of the parameter
// table, backend.Param.
type ParamSpec = backend.Param

// CustomPrefix starts free-form parameters that fusiontune passes through,
// unchecked, to external backends' config templates ("custom.boost": 2).
const CustomPrefix = backend.CustomPrefix

// WeightPrefix starts per-retriever fusion weights ("fusion.weights.bm25").
const WeightPrefix = backend.WeightPrefix

// LookupParam returns the spec of a parameter experiment files accept:
// backend.LookupParam but for the engine config keys the table marks
// ConfigKey (fusion.depth, passage). Per-retriever weights
// ("fusion.weights.<retriever>") are known for any retriever name; custom.*
// keys have no spec.
func LookupParam(name string) (ParamSpec, bool) {
	s, ok := backend.LookupParam(name)
	if !ok || s.ConfigKey {
		return ParamSpec{}, false
	}
	return s, true
}

// ParamNames lists the parameter names experiment files accept, in the
// table's order (weights and custom.* as patterns).
func ParamNames() []string {
	var names []string
	for _, n := range backend.ParamNames() {
		if s, ok := backend.LookupParam(n); !ok || !s.ConfigKey {
			names = append(names, n)
		}
	}
	return names
}

// unknownParam is the problem of a parameter name experiment files do
// not accept: the known names, after a did-you-mean when one is close
// ("chunk_size": "chunk.size").
func unknownParam(name string) string {
	names := ParamNames()
	var plain []string
	for _, n := range names {
		if !strings.Contains(n, "<") {
			plain = append(plain, n)
		}
	}
	if m := suggest.Closest(name, plain); m != "" {
		return fmt.Sprintf("unknown parameter %q (did you mean %q? known: %s)", name, m, strings.Join(names, ", "))
	}
	return fmt.Sprintf("unknown parameter %q (known: %s)", name, strings.Join(names, ", "))
}

// IsIndexTime reports whether changing name requires re-indexing.
func IsIndexTime(name string) bool {
	s, ok := LookupParam(name)
	return ok && s.IndexTime
}

// Replayable reports whether a trial changing name can be fused offline
// from candidate lists collected under other values (ParamSpec.Replayable):
// fusion.method, fusion.k, fusion.normalization, depth, min_score,
// bm25.min_score, dense.min_score, alpha, fusionType and every
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
