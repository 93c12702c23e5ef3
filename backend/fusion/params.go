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

// Fusion settings a method may read, as Method.Reads names them (the
// engine config's and experiment files' names under "fusion.").
const (
	SettingK             = "k"
	SettingWeights       = "weights"
	SettingNormalization = "normalization"
)

// methodReads is, per method, the settings it reads (see Fuse): rrf
// weighs ranks (k, weights), linear weighs normalized scores (weights,
// normalization), combsum and combmnz sum normalized scores unweighted
// (normalization; a weight of 0 still switches a retriever off). Every
// method reads the depth.
var methodReads = map[Method]map[string]bool{
	RRF:     {SettingK: true, SettingWeights: true},
	Linear:  {SettingWeights: true, SettingNormalization: true},
	CombSUM: {SettingNormalization: true},
	CombMNZ: {SettingNormalization: true},
}

// Reads reports whether fusing with m reads setting (SettingK,
// SettingWeights or SettingNormalization): false for a setting m ignores,
// such as the normalization under rrf or k under linear. For combsum and
// combmnz SettingWeights is false, though a weight of 0 still switches a
// retriever off. An unknown method or setting reads nothing.
func (m Method) Reads(setting string) bool { return methodReads[m][setting] }

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
	// Policy is the path of a query-adaptive fusion policy (Policy, a JSON
	// document `tune adapt` writes): set in an engine config only, it
	// chooses each query's settings among its arms instead of the fields
	// above. Override keeps p's; a per-request override may not set it.
	Policy string `json:"policy,omitempty" yaml:"policy,omitempty"`
}

// Candidate is one entry of a retriever's ranked list.
type Candidate struct {
	ID    string  `json:"id"`     // chunk id (equal to DocID for whole documents)
	DocID string  `json:"doc_id"` // document the chunk belongs to
	Score float64 `json:"score"`  // the retriever's raw score
	Rank  int     `json:"rank"`   // 1-based rank in the retriever's list
}

// WithDefaults returns p with every unset (zero) field replaced by its
// default: DefaultMethod, DefaultRankConstant, DefaultNormalization and
// DefaultDepth. Weights are left as they are: a retriever without a weight
// has weight 1 (see Params.Weight).
func (p Params) WithDefaults() Params {
	if p.Method == "" {
		p.Method = DefaultMethod
	}
	if p.K == 0 {
		p.K = DefaultRankConstant
	}
	if p.Normalization == "" {
		p.Normalization = DefaultNormalization
	}
	if p.Depth == 0 {
		p.Depth = DefaultDepth
	}
	return p
}

// Weight returns the weight of the named retriever: Weights[name] when set,
// otherwise 1. A weight of 0 switches the retriever off: its candidates
// neither score nor appear in the fused ranking, whatever the method.
func (p Params) Weight(retriever string) float64 {
	if w, ok := p.Weights[retriever]; ok {
		return w
	}
	return 1
}

// Override returns p with every field set in o (non-zero) taking o's value;
// o's weights are merged key by key over p's, so an override naming only
// "dense" keeps p's weight for "bm25". The result never shares its Weights
// map with p or o. A nil o returns a copy of p.
func (p Params) Override(o *Params) Params {
	out := p
	out.Weights = nil
	if len(p.Weights) > 0 || (o != nil && len(o.Weights) > 0) {
		out.Weights = make(map[string]float64, len(p.Weights)+1)
		for k, v := range p.Weights {
			out.Weights[k] = v
		}
	}
	if o == nil {
		return out
	}
	if o.Method != "" {
		out.Method = o.Method
	}
	if o.K != 0 {
		out.K = o.K
	}
	if o.Normalization != "" {
		out.Normalization = o.Normalization
	}
	if o.Depth != 0 {
		out.Depth = o.Depth
	}
	for k, v := range o.Weights {
		out.Weights[k] = v
	}
	return out
}
