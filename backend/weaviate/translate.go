package weaviate

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Weaviate's own parameter names, accepted in experiment files beside the
// common ones (backend.ParamAlpha, backend.ParamFusionType).
const (
	ParamAlpha      = backend.ParamAlpha
	ParamFusionType = backend.ParamFusionType
)

// Params lists the parameters the weaviate kind sets, in the order its
// refusal of any other names them: Weaviate's own (ParamAlpha,
// ParamFusionType) and the common names Translate maps onto them or onto
// the server's settings. fusion.normalization is taken at min_max only and
// fusion.k at 59 only (onlyValue). Translate also takes the names of
// Accepted beyond these.
var Params = []string{ParamAlpha, ParamFusionType, backend.ParamFusionMethod, backend.WeightParam("bm25"), backend.WeightParam("dense"),
	backend.ParamFusionNormalization, backend.ParamFusionK, backend.ParamDepth, backend.ParamBM25K1, backend.ParamBM25B,
	backend.ParamDenseModel, backend.ParamRetrievers}

// onlyValue is, for a parameter of Params that Translate takes at one
// value only, that value as refusals name it.
var onlyValue = map[string]string{
	backend.ParamFusionNormalization: string(fusion.MinMax),
	backend.ParamFusionK:             fmt.Sprint(fusion.WeaviateOneBasedK),
}

// Accepted lists every name Translate takes, at some value: Params, then
// fusion.depth (the engine config's spelling of depth) and chunk.size and
// chunk.overlap (0 only: the kind loads whole documents, one object each).
func Accepted() []string {
	return append(slices.Clone(Params), backend.ParamFusionDepth, backend.ParamChunkSize, backend.ParamChunkOverlap)
}

// setsList is what Translate's refusal of an unknown name lists: Params,
// each with its only value.
func setsList() string {
	names := make([]string, len(Params))
	for i, p := range Params {
		names[i] = strings.TrimSpace(p + " " + onlyValue[p])
	}
	return strings.Join(names, ", ")
}

// Defaults of a Trial, Weaviate's own (v1.35.2: DefaultAlpha and
// HybridFusionDefault in adapters/handlers/graphql/local/common_filters/
// hybrid.go, DefaultQueryHybridMaximumResults): alpha 0.75,
// relativeScoreFusion, BM25 k1 1.2 and b 0.75, 100 candidates per leg.
const (
	DefaultAlpha      = 0.75
	DefaultFusionType = fusion.WeaviateRelativeScoreFusion
	DefaultK1         = 1.2
	DefaultB          = 0.75
	DefaultMaxResults = 100
	// MaxMaxResults bounds depth (QUERY_HYBRID_MAXIMUM_RESULTS).
	MaxMaxResults = 10000
)

// Trial is a trial's parameters as Weaviate applies them.
type Trial struct {
	// Alpha weighs the vector leg (1 - Alpha the keyword leg), in [0, 1].
	Alpha float64 `json:"alpha"`
	// FusionType is rankedFusion or relativeScoreFusion.
	FusionType string `json:"fusionType"`
	// MaxResults is QUERY_HYBRID_MAXIMUM_RESULTS (restart to change).
	MaxResults int `json:"maxResults"`
	// K1 and B are the class's BM25 parameters (schema update, live).
	K1 float64 `json:"k1"`
	B  float64 `json:"b"`
	// Model is the embedder of the documents and queries: the index-time
	// group, one class per model ("" for the kind's default).
	Model string `json:"model,omitempty"`
}

// Translate maps a trial's parameters (flattened experiment-file names) to
// what Weaviate runs, listing every parameter it cannot express at once:
//
//   - alpha (0 to 1) and fusionType (rankedFusion, relativeScoreFusion):
//     Weaviate's own names, passed as they are.
//   - fusion.weights.bm25 and fusion.weights.dense (>= 0, not both 0; an
//     unset one is 1): alpha = dense / (bm25 + dense). Not with alpha.
//   - fusion.method: rrf is rankedFusion, linear is relativeScoreFusion
//     (min-max per leg); combsum and combmnz have no Weaviate form. Not
//     with fusionType.
//   - fusion.normalization: only min_max (relativeScoreFusion's).
//   - fusion.k: only 59. rankedFusion scores a leg's position p (zero
//     based) as w / (60 + p), that is w / (59 + rank) in one-based ranks,
//     and the constant is fixed in Weaviate's source.
//   - depth or fusion.depth (1 to MaxMaxResults): QUERY_HYBRID_MAXIMUM_RESULTS.
//   - bm25.k1 (>= 0) and bm25.b (0 to 1): the class's BM25 settings.
//   - retrievers: [bm25] is alpha 0, [dense] alpha 1, both leave alpha.
//   - dense.model: the embedder, one class per model.
//   - chunk.size and chunk.overlap: only 0 (the kind loads whole documents).
//
// Anything else (min_score, the retrievers' floors, custom.*) is rejected.
func Translate(params map[string]any) (Trial, error) {
	t := Trial{Alpha: DefaultAlpha, FusionType: DefaultFusionType, MaxResults: DefaultMaxResults, K1: DefaultK1, B: DefaultB}
	var probs []string
	bad := func(name, format string, a ...any) {
		probs = append(probs, name+": "+fmt.Sprintf(format, a...))
	}
	weights := map[string]float64{}
	method, normalization := "", ""
	for _, name := range slices.Sorted(maps.Keys(params)) {
		v := params[name]
		switch {
		case name == ParamAlpha:
			if x, ok := num(v); !ok || x < 0 || x > 1 {
				bad(name, "want a number from 0 to 1 (got %v)", v)
			} else {
				t.Alpha = x
			}
		case name == ParamFusionType:
			s, _ := v.(string)
			if s != fusion.WeaviateRankedFusion && s != fusion.WeaviateRelativeScoreFusion {
				bad(name, "want %s or %s (got %v)", fusion.WeaviateRankedFusion, fusion.WeaviateRelativeScoreFusion, v)
			} else {
				t.FusionType = s
			}
		case strings.HasPrefix(name, backend.WeightPrefix):
			r := strings.TrimPrefix(name, backend.WeightPrefix)
			x, ok := num(v)
			switch {
			case r != "bm25" && r != "dense":
				bad(name, "Weaviate's hybrid query has two legs: weigh them with fusion.weights.bm25 and fusion.weights.dense (or alpha)")
			case !ok || x < 0 || math.IsInf(x, 0):
				bad(name, "want a number >= 0 (got %v)", v)
			default:
				weights[r] = x
			}
		case name == backend.ParamFusionMethod:
			method, _ = v.(string)
			switch method {
			case string(fusion.RRF), string(fusion.Linear):
			default:
				bad(name, "Weaviate fuses by rankedFusion (fusion.method rrf) or relativeScoreFusion (linear, min_max per leg); %v has no Weaviate form", v)
			}
		case name == backend.ParamFusionNormalization:
			normalization, _ = v.(string)
			if normalization != string(fusion.MinMax) {
				bad(name, "Weaviate normalizes by min-max only (relativeScoreFusion); %v cannot be expressed", v)
			}
		case name == backend.ParamFusionK:
			if x, ok := num(v); !ok || x != fusion.WeaviateOneBasedK {
				bad(name, "Weaviate fixes the RRF constant: rankedFusion scores 1/(60 + position) over zero-based positions, which is fusion.k 59 in one-based ranks; it cannot be set (got %v)", v)
			}
		case name == backend.ParamDepth || name == backend.ParamFusionDepth:
			if x, ok := num(v); !ok || x != math.Trunc(x) || x < 1 || x > MaxMaxResults {
				bad(name, "want an integer from 1 to %d (got %v)", MaxMaxResults, v)
			} else {
				t.MaxResults = int(x)
			}
		case name == backend.ParamBM25K1:
			if x, ok := num(v); !ok || x < 0 || math.IsInf(x, 0) {
				bad(name, "want a number >= 0 (got %v)", v)
			} else {
				t.K1 = x
			}
		case name == backend.ParamBM25B:
			if x, ok := num(v); !ok || x < 0 || x > 1 {
				bad(name, "want a number from 0 to 1 (got %v)", v)
			} else {
				t.B = x
			}
		case name == backend.ParamDenseModel:
			if s, ok := v.(string); !ok || s == "" {
				bad(name, "want an embedder spec such as lsa-256 (got %v)", v)
			} else {
				t.Model = s
			}
		case name == backend.ParamChunkSize || name == backend.ParamChunkOverlap:
			if x, ok := num(v); !ok || x != 0 {
				bad(name, "the weaviate kind loads whole documents, one object each: only 0 (got %v)", v)
			}
		case name == backend.ParamRetrievers:
			rs := strs(v)
			switch {
			case len(rs) == 1 && rs[0] == "bm25":
				t.Alpha = 0
			case len(rs) == 1 && rs[0] == "dense":
				t.Alpha = 1
			case len(rs) == 2 && (rs[0] == "bm25" && rs[1] == "dense" || rs[0] == "dense" && rs[1] == "bm25"):
			default:
				bad(name, "want bm25, dense or both (got %v)", v)
			}
		default:
			bad(name, "not a parameter the weaviate kind can set (it sets %s)", setsList())
		}
	}
	if _, ok := params[ParamAlpha]; ok && len(weights) > 0 {
		bad(backend.WeightsParam, "give alpha or fusion.weights.bm25/dense, not both")
	}
	if _, ok := params[ParamFusionType]; ok && method != "" {
		bad(backend.ParamFusionMethod, "give fusionType or fusion.method, not both")
	}
	if method == string(fusion.RRF) && normalization != "" {
		bad(backend.ParamFusionNormalization, "rankedFusion (fusion.method rrf) normalizes nothing; drop it")
	}
	switch method {
	case string(fusion.RRF):
		t.FusionType = fusion.WeaviateRankedFusion
	case string(fusion.Linear):
		t.FusionType = fusion.WeaviateRelativeScoreFusion
	}
	if len(weights) > 0 {
		wb, wd := 1.0, 1.0
		if w, ok := weights["bm25"]; ok {
			wb = w
		}
		if w, ok := weights["dense"]; ok {
			wd = w
		}
		if wb+wd == 0 {
			bad(backend.WeightsParam, "bm25 and dense are both 0: nothing to fuse")
		} else {
			t.Alpha = wd / (wb + wd)
		}
	}
	if len(probs) > 0 {
		return Trial{}, errors.New(strings.Join(probs, "; "))
	}
	return t, nil
}

// num reads a number (backend.FloatValue) that is not NaN.
func num(v any) (float64, bool) {
	x, msg := backend.FloatValue(v)
	return x, msg == "" && !math.IsNaN(x)
}

// strs reads a list of strings (backend.StringsValue); nil if v is none.
func strs(v any) []string {
	list, _ := backend.StringsValue(v)
	return list
}
