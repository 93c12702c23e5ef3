package fusion

// Method names a fusion method.
type Method string

// The fusion methods.
const (
	RRF     Method = "rrf"     // reciprocal rank fusion: sum of w / (k + rank)
	Linear  Method = "linear"  // weighted sum of normalized scores
	CombSUM Method = "combsum" // unweighted sum of normalized scores
	CombMNZ Method = "combmnz" // CombSUM times the number of lists holding the item
)

// Normalization names a score normalization applied per list before a
// score-based fusion.
type Normalization string

// The score normalizations.
const (
	MinMax Normalization = "min_max" // (s - min) / (max - min)
	ZScore Normalization = "z_score" // (s - mean) / stddev
	L2     Normalization = "l2"      // s / ||s||2
	None   Normalization = "none"    // raw scores
)

// Defaults applied by Params.WithDefaults.
const (
	DefaultMethod        = RRF
	DefaultRankConstant  = 60.0
	DefaultNormalization = MinMax
	DefaultDepth         = 100
)

// Params are the query-time fusion settings. A zero field means "not set";
// WithDefaults fills it. The JSON and YAML names are those of the engine
// config and of the per-request override in POST /search.
type Params struct {
	Method        Method             `json:"method,omitempty" yaml:"method,omitempty"`
	K             float64            `json:"k,omitempty" yaml:"k,omitempty"`
	Weights       map[string]float64 `json:"weights,omitempty" yaml:"weights,omitempty"`
	Normalization Normalization      `json:"normalization,omitempty" yaml:"normalization,omitempty"`
	Depth         int                `json:"depth,omitempty" yaml:"depth,omitempty"`
}

// Candidate is one entry of a retriever's ranked list.
type Candidate struct {
	ID    string  `json:"id"`     // chunk id (equal to DocID for whole documents)
	DocID string  `json:"doc_id"` // document the chunk belongs to
	Score float64 `json:"score"`  // the retriever's raw score
	Rank  int     `json:"rank"`   // 1-based rank in the retriever's list
}
