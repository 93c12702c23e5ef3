package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"gopkg.in/yaml.v3"
)

// Retriever names, as the embedded engine names them.
const (
	BM25  = "bm25"
	Dense = "dense"
)

// Defaults of Config.
const (
	DefaultModel      = "lsa-256"
	DefaultTextConfig = "english"
	DefaultDepth      = 100
	// MaxDepth bounds fusion.depth: hnsw.ef_search, set to the depth, is
	// at most 1000.
	MaxDepth = 1000
	// MaxK bounds fusion.k.
	MaxK = 1e6
	// MaxWeight bounds fusion.weights.*.
	MaxWeight = 1e6
)

// Config is one trial's configuration as the kind runs it, and the
// production config a promotion writes (YAML).
type Config struct {
	// Corpus is the corpus file (BEIR JSONL: _id, title, text), absolute.
	Corpus string      `yaml:"corpus"`
	Chunk  ChunkConfig `yaml:"chunk"`
	BM25   BM25Config  `yaml:"bm25"`
	Dense  DenseConfig `yaml:"dense"`
	// Fusion is the query-time fusion: method rrf (k, weights) or linear
	// (weights, normalization min_max), depth 1..MaxDepth.
	Fusion fusion.Params `yaml:"fusion"`
}

// ChunkConfig cuts documents into windows (corpus.ChunkConfig); size 0
// keeps whole documents.
type ChunkConfig struct {
	Size    int `yaml:"size"`
	Overlap int `yaml:"overlap"`
}

// BM25Config is the lexical retriever: the text-search configuration of
// to_tsvector and plainto_tsquery (index-time), and a floor on its
// ts_rank_cd scores (query-time; nil: none).
type BM25Config struct {
	TextConfig string   `yaml:"text_config"`
	MinScore   *float64 `yaml:"min_score,omitempty"`
}

// DenseConfig is the vector retriever: the embedder (index-time) and a
// floor on the cosine (query-time; nil: none).
type DenseConfig struct {
	Model    string   `yaml:"model"`
	MinScore *float64 `yaml:"min_score,omitempty"`
}

// DefaultConfig is the configuration params overlay.
func DefaultConfig(corpus string) Config {
	return Config{
		Corpus: corpus,
		BM25:   BM25Config{TextConfig: DefaultTextConfig},
		Dense:  DenseConfig{Model: DefaultModel},
		Fusion: fusion.Params{Method: fusion.RRF, K: fusion.DefaultRankConstant, Weights: map[string]float64{BM25: 1, Dense: 1},
			Normalization: fusion.MinMax, Depth: DefaultDepth},
	}
}

// ParamTextConfig is the experiment files' name of the text-search
// configuration (bm25.text_config): a custom parameter.
const ParamTextConfig = backend.CustomPrefix + "text_config"

// Params lists the parameters a trial may set: names of the parameter
// table (backend.LookupParam), the weights of the kind's two retrievers and
// ParamTextConfig. bm25.k1 and bm25.b are refused with a reason of their
// own, every other name as not the kind's.
var Params = []string{backend.ParamChunkSize, backend.ParamChunkOverlap, ParamTextConfig, backend.ParamBM25MinScore,
	backend.ParamDenseModel, backend.ParamDenseMinScore, backend.ParamFusionMethod, backend.ParamFusionK,
	backend.WeightParam(BM25), backend.WeightParam(Dense), backend.ParamFusionNormalization, backend.ParamDepth}

// WithParams overlays params (flattened dotted keys) on c and validates
// the result.
func (c Config) WithParams(params map[string]any) (Config, error) {
	c.Fusion.Weights = c.Fusion.Override(nil).Weights
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []string
	bad := func(k string, format string, args ...any) {
		problems = append(problems, k+": "+fmt.Sprintf(format, args...))
	}
	for _, k := range keys {
		v := params[k]
		var err error
		switch k {
		case backend.ParamChunkSize:
			c.Chunk.Size, err = toInt(v)
		case backend.ParamChunkOverlap:
			c.Chunk.Overlap, err = toInt(v)
		case ParamTextConfig:
			c.BM25.TextConfig, err = toString(v)
		case backend.ParamDenseModel:
			c.Dense.Model, err = toString(v)
		case backend.ParamBM25MinScore, backend.ParamDenseMinScore:
			var f float64
			if f, err = toFloat(v); err == nil {
				if k == backend.ParamBM25MinScore {
					c.BM25.MinScore = &f
				} else {
					c.Dense.MinScore = &f
				}
			}
		case backend.ParamFusionMethod:
			var s string
			s, err = toString(v)
			c.Fusion.Method = fusion.Method(s)
		case backend.ParamFusionNormalization:
			var s string
			s, err = toString(v)
			c.Fusion.Normalization = fusion.Normalization(s)
		case backend.ParamFusionK:
			c.Fusion.K, err = toFloat(v)
		case backend.ParamDepth:
			c.Fusion.Depth, err = toInt(v)
		case backend.WeightParam(BM25), backend.WeightParam(Dense):
			var f float64
			if f, err = toFloat(v); err == nil {
				c.Fusion.Weights[strings.TrimPrefix(k, backend.WeightPrefix)] = f
			}
		case backend.ParamBM25K1, backend.ParamBM25B:
			bad(k, "ts_rank_cd, the postgres kind's lexical score, has no BM25 parameters")
			continue
		default:
			bad(k, "not a postgres kind parameter (want one of %s)", strings.Join(Params, ", "))
			continue
		}
		if err != nil {
			bad(k, "%v", err)
		}
	}
	if len(problems) == 0 {
		if err := c.Validate(); err != nil {
			return c, err
		}
		return c, nil
	}
	return c, fmt.Errorf("postgres: %s", strings.Join(problems, "; "))
}

// Validate checks every setting against its range, listing every problem.
func (c Config) Validate() error {
	var problems []string
	bad := func(field, format string, args ...any) {
		problems = append(problems, field+": "+fmt.Sprintf(format, args...))
	}
	if c.Corpus == "" {
		bad("corpus", "required: the corpus file the tables are loaded from")
	}
	if c.Chunk.Size < 0 || c.Chunk.Overlap < 0 || (c.Chunk.Size > 0 && c.Chunk.Overlap >= c.Chunk.Size) || (c.Chunk.Size == 0 && c.Chunk.Overlap != 0) {
		bad("chunk", "need size >= 0 and 0 <= overlap < size, overlap 0 for whole documents (got size %d, overlap %d)", c.Chunk.Size, c.Chunk.Overlap)
	}
	if !textConfigName(c.BM25.TextConfig) {
		bad("bm25.text_config", "must be a text search configuration name such as english or simple (got %q)", c.BM25.TextConfig)
	}
	if _, err := embed.New(c.Dense.Model, embed.Options{}); err != nil && !strings.HasPrefix(c.Dense.Model, "file:") {
		bad("dense.model", "%v", err)
	}
	for name, f := range map[string]*float64{"bm25.min_score": c.BM25.MinScore, "dense.min_score": c.Dense.MinScore} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			bad(name, "must be a finite number")
		}
	}
	p := c.Fusion
	switch p.Method {
	case fusion.RRF:
	case fusion.Linear:
		if p.Normalization != fusion.MinMax {
			bad("fusion.normalization", "the shipped SQL normalizes by min_max only (got %q)", p.Normalization)
		}
	default:
		bad("fusion.method", "must be rrf or linear (min-max) for the postgres kind (got %q)", p.Method)
	}
	if !(p.K > 0 && p.K <= MaxK) {
		bad("fusion.k", "must be in (0, %g] (got %g)", MaxK, p.K)
	}
	if p.Depth < 1 || p.Depth > MaxDepth {
		bad("fusion.depth", "must be from 1 to %d (got %d)", MaxDepth, p.Depth)
	}
	for r, w := range p.Weights {
		if r != BM25 && r != Dense {
			bad("fusion.weights."+r, "unknown retriever (want bm25 or dense)")
		} else if !(w >= 0 && w <= MaxWeight) {
			bad("fusion.weights."+r, "must be in [0, %g] (got %g)", MaxWeight, w)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return fmt.Errorf("postgres: %s", strings.Join(problems, "; "))
	}
	return nil
}

func textConfigName(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// Settings is the query-time half as the fusion package states it: the
// settings fusion.Postgres replays a trial under.
func (c Config) Settings() fusion.Settings {
	s := fusion.Settings{Fusion: c.Fusion.Override(nil)}
	for r, f := range map[string]*float64{BM25: c.BM25.MinScore, Dense: c.Dense.MinScore} {
		if f != nil {
			if s.Floors == nil {
				s.Floors = map[string]float64{}
			}
			s.Floors[r] = *f
		}
	}
	return s
}

// Group is the index-time half: trials with equal groups share a table.
func (c Config) Group() string {
	h := sha256.New()
	fmt.Fprintf(h, "fusiontune-postgres-v1\x00%s\x00%d\x00%d\x00%s\x00%s", c.Corpus, c.Chunk.Size, c.Chunk.Overlap, c.Dense.Model, c.BM25.TextConfig)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Marshal is the YAML of c (the described config, the production file).
func (c Config) Marshal() ([]byte, error) { return yaml.Marshal(c) }

// ReadConfig reads a production config file written by Marshal.
func ReadConfig(path string) (Config, error) {
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return Config{}, err
	}
	var c Config
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// toInt reads an integer: a number as backend.IntValue reads it, within
// ±2^31, or a string holding one.
func toInt(v any) (int, error) {
	switch x := v.(type) {
	case string:
		return strconv.Atoi(x)
	case float64:
		if math.Abs(x) >= 1<<31 {
			return 0, fmt.Errorf("want an integer (got %v)", v)
		}
	}
	i, msg := backend.IntValue(v)
	if msg != "" {
		return 0, fmt.Errorf("want an integer (got %v)", v)
	}
	return i, nil
}

// toFloat reads a number as backend.FloatValue reads it, or a string
// holding one.
func toFloat(v any) (float64, error) {
	if s, ok := v.(string); ok {
		return strconv.ParseFloat(s, 64)
	}
	f, msg := backend.FloatValue(v)
	if msg != "" {
		return 0, fmt.Errorf("want a number (got %v)", v)
	}
	return f, nil
}

func toString(v any) (string, error) {
	s, msg := backend.StringValue(v)
	if msg != "" {
		return "", fmt.Errorf("want a string (got %v)", v)
	}
	return s, nil
}
