package lancedb

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

// Params lists the parameters the lancedb kind sets, in the order its
// refusal of any other names them. fusion.method is taken at rrf only,
// the weights at 1 only (LanceDB's RRF weighs both legs alike).
var Params = []string{backend.ParamFusionK, backend.ParamLimit, backend.ParamFusionMethod,
	backend.WeightParam("bm25"), backend.WeightParam("dense"), backend.ParamDenseModel}

// Defaults of a Trial and the bounds Translate checks.
const (
	// DefaultK is the RRF reranker's k (LanceDB's own default).
	DefaultK = fusion.DefaultLanceDBRankConstant
	// DefaultLimit is the hybrid query's limit when a trial sets no depth:
	// the project's default depth (LanceDB's own is 10).
	DefaultLimit = fusion.DefaultDepth
	// MaxLimit bounds limit (each leg's depth and the answer's length).
	MaxLimit = 10000
)

// Trial is a trial's parameters as a LanceDB hybrid query runs them.
type Trial struct {
	// K is the RRFReranker's k (> 0, at most fusion.MaxK).
	K float64 `json:"k"`
	// Limit is the query's limit: the depth of both legs and the number of
	// rows the hybrid answer holds (1 to MaxLimit).
	Limit int `json:"limit"`
	// Model is the embedder of documents and queries (sandbox mode: the
	// index-time group, one table per model; "" for the kind's default).
	Model string `json:"model,omitempty"`
}

// Settings returns t's query-time settings for the tuner's replay:
// method rrf, k, depth the limit, both legs weighted 1, under
// fusion.FormulaLanceDB.
func (t Trial) Settings() fusion.Settings {
	return fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: t.K, Depth: t.Limit,
		Weights: map[string]float64{"bm25": 1, "dense": 1}}, Formula: fusion.FormulaLanceDB}
}

// Translate maps a trial's parameters to a LanceDB hybrid query, listing
// every parameter it cannot express at once:
//
//   - fusion.k (> 0, at most 1e6): the RRFReranker's k.
//   - limit (1 to MaxLimit): the query's limit, which is both legs' depth
//     and the answer's length. It is LanceDB's own name, not depth: the
//     full-text leg orders rows of equal BM25 score differently at
//     different limits, so a leg at one limit is not the start of the leg
//     at a larger one, and trials of different limits are collected
//     apart (limit is not replayable across values; fusion.k is).
//   - fusion.method: rrf only (the RRF reranker).
//   - fusion.weights.bm25 and fusion.weights.dense: 1 only.
//   - dense.model: the embedder (sandbox mode; one table per model).
//   - chunk.size and chunk.overlap: 0 only (one row per document).
//
// Anything else (min_score, the retrievers' floors, custom.*) is rejected.
func Translate(params map[string]any) (Trial, error) {
	t := Trial{K: DefaultK, Limit: DefaultLimit}
	var probs []string
	bad := func(name, format string, a ...any) {
		probs = append(probs, name+": "+fmt.Sprintf(format, a...))
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		v := params[name]
		switch {
		case name == backend.ParamFusionK:
			if x, ok := num(v); !ok || x <= 0 || x > fusion.MaxK {
				bad(name, "want a number > 0 and at most %g (got %v)", fusion.MaxK, v)
			} else {
				t.K = x
			}
		case name == backend.ParamLimit:
			if x, ok := num(v); !ok || x != math.Trunc(x) || x < 1 || x > MaxLimit {
				bad(name, "want an integer from 1 to %d (got %v)", MaxLimit, v)
			} else {
				t.Limit = int(x)
			}
		case name == backend.ParamDepth || name == backend.ParamFusionDepth:
			bad(name, "LanceDB's hybrid query has one limit, each leg's depth and the answer's length: set limit (each limit is collected apart: the full-text leg orders equal BM25 scores differently at different limits)")
		case name == backend.ParamFusionMethod:
			if s, _ := v.(string); s != string(fusion.RRF) {
				bad(name, "LanceDB's hybrid query fuses by its RRF reranker only: rrf (got %v)", v)
			}
		case strings.HasPrefix(name, backend.WeightPrefix):
			r := strings.TrimPrefix(name, backend.WeightPrefix)
			if x, ok := num(v); r != "bm25" && r != "dense" || !ok || x != 1 {
				bad(name, "LanceDB's RRF weighs its two legs (bm25, dense) alike: only 1 (got %v)", v)
			}
		case name == backend.ParamDenseModel:
			if s, ok := v.(string); !ok || s == "" {
				bad(name, "want an embedder spec such as lsa-256 (got %v)", v)
			} else {
				t.Model = s
			}
		case name == backend.ParamChunkSize || name == backend.ParamChunkOverlap:
			if x, ok := num(v); !ok || x != 0 {
				bad(name, "the lancedb kind loads whole documents, one row each: only 0 (got %v)", v)
			}
		default:
			bad(name, "not a parameter the lancedb kind can set (it sets %s)", strings.Join(Params, ", "))
		}
	}
	if len(probs) > 0 {
		return Trial{}, errors.New(strings.Join(probs, "; "))
	}
	return t, nil
}

// TrialOf returns base with a per-request fusion override applied: k and
// depth (the limit) change per request; another method, or a weight
// other than 1, is an error. A nil override returns base.
func TrialOf(base Trial, o *fusion.Params) (Trial, error) {
	if o == nil {
		return base, nil
	}
	t := base
	if o.Method != "" && o.Method != fusion.RRF {
		return Trial{}, fmt.Errorf("lancedb: method %q: LanceDB's hybrid query fuses by rrf only", o.Method)
	}
	for r, w := range o.Weights {
		if w != 1 {
			return Trial{}, fmt.Errorf("lancedb: weight %g of %q: LanceDB's RRF weighs both legs alike (1)", w, r)
		}
	}
	if o.K != 0 {
		t.K = o.K
	}
	if o.Depth != 0 {
		if o.Depth > MaxLimit {
			return Trial{}, fmt.Errorf("lancedb: depth %d: at most %d", o.Depth, MaxLimit)
		}
		t.Limit = o.Depth
	}
	return t, nil
}

// num reads a number (backend.FloatValue) that is not NaN.
func num(v any) (float64, bool) {
	x, msg := backend.FloatValue(v)
	return x, msg == "" && !math.IsNaN(x)
}
