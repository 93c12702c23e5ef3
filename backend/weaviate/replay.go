package weaviate

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

var _ backend.FusionResolver = (*Factory)(nil)

// Params returns t's query-time settings as fusion.Params: method rrf
// (rankedFusion, K the one-based fusion.WeaviateOneBasedK) or linear
// (relativeScoreFusion, min_max), weights bm25 1 - Alpha and dense Alpha
// (fusion.WeaviateAlpha gives Alpha back exactly), depth MaxResults. They
// are the per-request override Search reads back with TrialOf.
func (t Trial) Params() fusion.Params {
	p := fusion.Params{Weights: map[string]float64{"bm25": 1 - t.Alpha, "dense": t.Alpha}, Depth: t.MaxResults}
	switch t.FusionType {
	case fusion.WeaviateRankedFusion:
		p.Method, p.K = fusion.RRF, fusion.WeaviateOneBasedK
	default:
		p.Method, p.Normalization = fusion.Linear, fusion.MinMax
	}
	return p
}

// TrialOf returns base with a per-request fusion override applied: the
// override's method sets the fusionType, its weights alpha (see
// Trial.Params); depth and k cannot change per request (depth is the
// server's QUERY_HYBRID_MAXIMUM_RESULTS), so an override naming another
// depth, another k or another normalization is an error. A nil override
// returns base.
func TrialOf(base Trial, o *fusion.Params) (Trial, error) {
	if o == nil {
		return base, nil
	}
	p := base.Params().Override(o)
	ft, err := fusion.WeaviateFusionType(p.Method)
	if err != nil {
		return Trial{}, err
	}
	switch {
	case o.Depth != 0 && o.Depth != base.MaxResults:
		return Trial{}, fmt.Errorf("weaviate: a request cannot change the depth (%d): it is the server's QUERY_HYBRID_MAXIMUM_RESULTS (%d)", o.Depth, base.MaxResults)
	case ft == fusion.WeaviateRankedFusion && o.K != 0 && o.K != fusion.WeaviateOneBasedK:
		return Trial{}, fmt.Errorf("weaviate: fusion k %g: Weaviate fixes it at %d (one-based)", o.K, fusion.WeaviateOneBasedK)
	case ft == fusion.WeaviateRelativeScoreFusion && p.Normalization != fusion.MinMax:
		return Trial{}, fmt.Errorf("weaviate: normalization %q: relativeScoreFusion normalizes by min_max only", p.Normalization)
	}
	for r := range p.Weights {
		if r != "bm25" && r != "dense" {
			return Trial{}, fmt.Errorf("weaviate: weight of %q: the hybrid query has the legs bm25 and dense only", r)
		}
	}
	if p.Weight("bm25")+p.Weight("dense") == 0 {
		return Trial{}, fmt.Errorf("weaviate: weights of bm25 and dense are both 0: nothing to fuse")
	}
	t := base
	t.FusionType, t.Alpha = ft, fusion.WeaviateAlpha(p)
	return t, nil
}

// Fusion returns a trial's query-time settings for the tuner's replay:
// Trial.Params under fusion.FormulaWeaviate, so that the in-process fuser
// ranks the legs Search's Explain collects (bm25 and nearVector issued
// alone) exactly as Weaviate's hybrid query does, scores included.
func (f *Factory) Fusion(params map[string]any) (fusion.Settings, error) {
	translate := Translate
	if f.o.Class != "" {
		translate = f.attachedTrial // the depth is the server's
	}
	t, err := translate(params)
	if err != nil {
		return fusion.Settings{}, err
	}
	return fusion.Settings{Fusion: t.Params(), Formula: fusion.FormulaWeaviate}, nil
}
