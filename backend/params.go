package backend

import (
	"fmt"
	"math"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/rerank"
)

// The parameter names: the flattened dotted keys of a trial's parameters,
// as experiment files write them and every backend kind reads them.
const (
	ParamFusionMethod        = "fusion.method"
	ParamFusionK             = "fusion.k"
	ParamFusionNormalization = "fusion.normalization"
	ParamDepth               = "depth"
	ParamMinScore            = "min_score"
	ParamBM25MinScore        = "bm25.min_score"
	ParamDenseMinScore       = "dense.min_score"
	ParamRetrievers          = "retrievers"
	ParamChunkSize           = "chunk.size"
	ParamChunkOverlap        = "chunk.overlap"
	ParamDenseModel          = "dense.model"
	ParamBM25K1              = "bm25.k1"
	ParamBM25B               = "bm25.b"
	// The rerank stage (see backend/rerank): on/off, how many of the
	// fused hits the reranker reorders, its share of the blend.
	ParamRerankEnabled = "rerank.enabled"
	ParamRerankWindow  = "rerank.window"
	ParamRerankWeight  = "rerank.weight"
	// ParamAlpha and ParamFusionType are Weaviate's own names (the
	// weaviate kind; other kinds refuse them).
	ParamAlpha      = "alpha"
	ParamFusionType = "fusionType"
	// ParamLimit is LanceDB's own name (the lancedb kind): a hybrid
	// query's limit.
	ParamLimit = "limit"
	// ParamFusionDepth and ParamPassage are engine config keys that the
	// adapters take in a trial's parameters but experiment files do not
	// (Param.ConfigKey): fusion.depth is the engine's own spelling of
	// depth, passage a serving mode.
	ParamFusionDepth = "fusion.depth"
	ParamPassage     = "passage"
)

// CustomPrefix starts free-form parameters that fusiontune passes through,
// unchecked, to external backends' config templates ("custom.boost": 2).
// Kinds that have no templates ignore or refuse them.
const CustomPrefix = "custom."

// WeightsParam names the per-retriever fusion weights together: a grid
// axis over whole weight vectors, a problem about the weights as a whole.
const WeightsParam = "fusion.weights"

// WeightPrefix starts per-retriever fusion weights ("fusion.weights.bm25").
const WeightPrefix = WeightsParam + "."

// WeightParam returns the name of retriever's fusion weight parameter
// ("fusion.weights.bm25").
func WeightParam(retriever string) string { return WeightPrefix + retriever }

// Patterns standing for families of names in name lists (ParamNames).
const (
	// WeightPattern stands for every WeightParam.
	WeightPattern = WeightPrefix + "<retriever>"
	// CustomPattern stands for every name starting with CustomPrefix.
	CustomPattern = CustomPrefix + "<name>"
)

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

// String names what a value of kind k is, as problems word it ("a number").
func (k Kind) String() string {
	return [...]string{"a number", "an integer", "a string", "a list of strings", "true or false"}[k]
}

// Param describes one known parameter: the one table every layer reads
// (experiment files, the tuner's planning and replay, the adapters). A
// parameter is index-time (IndexTime), query-time and replayable
// (Replayable), or query-time but not replayable: retrievers, which
// changes the candidate lists themselves.
type Param struct {
	// Name is the flattened dotted name ("fusion.k").
	Name string
	// Kind is the type of the parameter's value.
	Kind Kind
	// IndexTime parameters change the index: changing one means
	// re-indexing and restarting the backend.
	IndexTime bool
	// Replayable parameters are applied after retrieval: the tuner fuses
	// a trial that changes only them offline, from candidate lists
	// collected once (depth from the deepest lists), without a restart.
	Replayable bool
	// Values are the values a string parameter takes (nil: any); Parse
	// refuses others as OneOf words it.
	Values []string
	// Check returns "" when v (already of the right kind, and among
	// Values) is acceptable, else what was expected.
	Check func(v any) string
	// Doc is one line on what the parameter sets.
	Doc string
	// Engine names the backend kind whose own parameter this is
	// ("weaviate"); other kinds reject it. Empty for the common parameters.
	Engine string
	// ConfigKey marks an engine config key that adapters accept in a
	// trial's parameters but experiment files do not: they write depth,
	// not fusion.depth, and do not tune passage.
	ConfigKey bool
}

// params is the table. Experiment files list their parameters in this
// order (the ConfigKey ones left out).
var params = []Param{
	{Name: ParamFusionMethod, Kind: KindString, Replayable: true, Values: []string{string(fusion.RRF), string(fusion.Linear), string(fusion.CombSUM), string(fusion.CombMNZ)}, Doc: "fusion method"},
	{Name: ParamFusionK, Kind: KindFloat, Replayable: true, Check: upTo(fusion.MaxK), Doc: "RRF rank constant (> 0, at most 1e6)"},
	{Name: ParamFusionNormalization, Kind: KindString, Replayable: true, Values: []string{string(fusion.MinMax), string(fusion.ZScore), string(fusion.L2), string(fusion.None)}, Doc: "score normalization (score-based methods)"},
	{Name: ParamDepth, Kind: KindInt, Replayable: true, Check: positive, Doc: "candidates per retriever"},
	{Name: ParamMinScore, Kind: KindFloat, Replayable: true, Check: nil, Doc: "no-results threshold on the fused score (any finite number)"},
	{Name: ParamBM25MinScore, Kind: KindFloat, Replayable: true, Check: nil, Doc: "floor on BM25 candidate scores (any finite number; BM25 scores are >= 0)"},
	{Name: ParamDenseMinScore, Kind: KindFloat, Replayable: true, Check: nil, Doc: "floor on dense candidate cosines (any finite number; cosines are in [-1, 1])"},
	{Name: ParamRetrievers, Kind: KindStrings, Check: retrieverList, Doc: "retrievers to fuse: bm25, dense or both, each once"},
	{Name: ParamChunkSize, Kind: KindInt, IndexTime: true, Check: nonNegative, Doc: "chunk size in tokens (0 = whole documents)"},
	{Name: ParamChunkOverlap, Kind: KindInt, IndexTime: true, Check: nonNegative, Doc: "chunk overlap in tokens"},
	{Name: ParamDenseModel, Kind: KindString, IndexTime: true, Check: nonEmpty, Doc: "embedder spec, e.g. lsa-256"},
	{Name: ParamBM25K1, Kind: KindFloat, IndexTime: true, Check: nonNegative, Doc: "BM25 term-frequency saturation"},
	{Name: ParamBM25B, Kind: KindFloat, IndexTime: true, Check: unitInterval, Doc: "BM25 length normalization"},
	// The rerank stage, query-time: the engine applies it to its top
	// fused hits (the reranker's own settings live in the engine config).
	// The window and weight replay from the reranker's scores of every
	// candidate, collected beside the lists; turning the stage on or off
	// changes what is collected.
	{Name: ParamRerankEnabled, Kind: KindBool, Doc: "rerank the top fused hits with the engine config's reranker (true or false)"},
	{Name: ParamRerankWindow, Kind: KindInt, Replayable: true, Check: between(1, rerank.MaxWindow), Doc: "fused hits the reranker reorders (1 to 1000)"},
	{Name: ParamRerankWeight, Kind: KindFloat, Replayable: true, Check: unitInterval, Doc: "reranker's share of the blend with the fused score, each min-max normalized over the window (0 to 1)"},
	// Weaviate's own names (the weaviate kind; other kinds reject them).
	// Replayable: the weaviate kind collects each leg alone and the
	// tuner fuses them in-process by Weaviate's formula
	// (fusion.FormulaWeaviate).
	{Name: ParamAlpha, Kind: KindFloat, Replayable: true, Check: unitInterval, Doc: "Weaviate hybrid alpha: the vector leg's weight, 0 to 1 (weaviate kind)", Engine: "weaviate"},
	{Name: ParamFusionType, Kind: KindString, Replayable: true, Values: []string{fusion.WeaviateRankedFusion, fusion.WeaviateRelativeScoreFusion}, Doc: "Weaviate hybrid fusion (weaviate kind)", Engine: "weaviate"},
	// Engine config keys the adapters take beside the parameters.
	{Name: ParamLimit, Kind: KindInt, Check: positive, Doc: "LanceDB hybrid query limit: each leg's depth and the answer's length, 1 to 10000 (lancedb kind; each limit is collected apart)", Engine: "lancedb"},
	{Name: ParamFusionDepth, Kind: KindInt, Replayable: true, Check: positive, Doc: "the engine config's spelling of depth (engine config key)", ConfigKey: true},
	{Name: ParamPassage, Kind: KindBool, Doc: "rank chunks instead of documents (engine config key)", ConfigKey: true},
}

// LookupParam returns the table's entry for name. Per-retriever weights
// (WeightParam) are known for any retriever name without a dot; custom.*
// names have no entry.
func LookupParam(name string) (Param, bool) {
	for _, p := range params {
		if p.Name == name {
			return p, true
		}
	}
	if r, ok := strings.CutPrefix(name, WeightPrefix); ok && r != "" && !strings.Contains(r, ".") {
		return Param{Name: name, Kind: KindFloat, Replayable: true, Check: weight, Doc: "fusion weight of retriever " + r + " (0 to 1e6)"}, true
	}
	return Param{}, false
}

// ParamTable returns the table's entries in order (the weights, a
// pattern, and custom.* are not among them).
func ParamTable() []Param {
	return append([]Param(nil), params...)
}

// ParamNames lists every name of the table in order, then WeightPattern
// and CustomPattern.
func ParamNames() []string {
	names := make([]string, 0, len(params)+2)
	for _, p := range params {
		names = append(names, p.Name)
	}
	return append(names, WeightPattern, CustomPattern)
}

// KnownParam reports whether name is the table's: an entry or a weight
// (LookupParam, which takes WeightPattern as the weight of a retriever
// "<retriever>"), WeightsParam, or a custom.* name.
func KnownParam(name string) bool {
	if _, ok := LookupParam(name); ok {
		return true
	}
	return strings.HasPrefix(name, CustomPrefix) || name == WeightsParam
}

// Parse converts v, a value as experiment files decode it (float64,
// string, bool, []any) or as Go callers give it (int, int64, []string),
// to p's kind through the typed accessors (FloatValue, StringValue, ...),
// and checks it: numbers must be finite, integers whole, strings among
// Values, and Check must pass. It returns the normalized value (numbers
// as float64, lists as []string) or what was expected.
func (p Param) Parse(v any) (any, string) {
	var msg string
	switch p.Kind {
	case KindFloat, KindInt:
		var f float64
		if f, msg = FloatValue(v); msg != "" {
			return nil, KindProblem(p.Kind, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Sprintf("must be a finite number (got %v)", f)
		}
		if p.Kind == KindInt && f != math.Trunc(f) {
			return nil, fmt.Sprintf("must be an integer (got %v)", f)
		}
		v = f
	case KindString:
		v, msg = StringValue(v)
	case KindBool:
		v, msg = BoolValue(v)
	case KindStrings:
		v, msg = StringsValue(v)
	}
	if msg == "" && p.Values != nil {
		msg = OneOf(p.Values...)(v)
	}
	if msg != "" {
		return nil, msg
	}
	if p.Check != nil {
		if msg := p.Check(v); msg != "" {
			return nil, msg
		}
	}
	return v, ""
}

// OneOf returns a Check that accepts a string among valid: "must be one
// of rrf, linear (got "best")".
func OneOf(valid ...string) func(any) string {
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

// between checks lo <= v <= hi.
func between(lo, hi float64) func(any) string {
	return func(v any) string {
		if f := v.(float64); f < lo || f > hi {
			return fmt.Sprintf("must be between %s and %s (got %v)", FormatValue(lo), FormatValue(hi), FormatValue(f))
		}
		return ""
	}
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
