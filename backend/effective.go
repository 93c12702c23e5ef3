package backend

import (
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Defaulter is a Factory that tells the value each parameter takes in the
// configuration a trial runs on, defaults applied: a baseline that leaves
// fusion.k unset runs at the kind's default k (60 for the embedded
// engine), which is where a chart of fusion.k places it.
type Defaulter interface {
	// Effective returns the value parameter name takes under params (as
	// experiment files write values: numbers float64, lists []string);
	// false when the kind has no such setting, gives it no value (no
	// min_score), or params make no config.
	Effective(params map[string]any, name string) (any, bool)
}

// EffectiveParam is the value parameter name takes in the configuration
// params run on under f: params' own value when set, else f's default,
// from its Defaulter or, for the query-time settings, from its
// FusionResolver's settings (FusionValue); false when f cannot say.
func EffectiveParam(f Factory, params map[string]any, name string) (any, bool) {
	if v, ok := params[name]; ok {
		return v, true
	}
	if d, ok := f.(Defaulter); ok {
		return d.Effective(params, name)
	}
	if r, ok := f.(FusionResolver); ok {
		if s, err := r.Fusion(params); err == nil {
			return FusionValue(s, name)
		}
	}
	return nil, false
}

// FusionValue is the value of query-time parameter name in settings s
// (which hold the effective fusion, defaults applied): the method, k,
// normalization, depth, a retriever's weight (of a retriever s fuses),
// min_score and a retriever's floor when set; false for any other name.
func FusionValue(s fusion.Settings, name string) (any, bool) {
	p := s.Fusion
	switch name {
	case ParamFusionMethod:
		return string(p.Method), p.Method != ""
	case ParamFusionK:
		return p.K, p.K != 0
	case ParamFusionNormalization:
		return string(p.Normalization), p.Normalization != ""
	case ParamDepth, ParamFusionDepth:
		return float64(p.Depth), p.Depth != 0
	case ParamMinScore:
		if s.MinScore != nil {
			return *s.MinScore, true
		}
		return nil, false
	case ParamBM25MinScore, ParamDenseMinScore:
		floor, ok := s.Floors[strings.TrimSuffix(name, ".min_score")]
		return floor, ok
	}
	if r, ok := strings.CutPrefix(name, WeightPrefix); ok {
		if _, fused := p.Weights[r]; fused {
			return p.Weight(r), true
		}
	}
	return nil, false
}
