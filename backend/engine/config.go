package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/internal/yamldoc"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/rerank"
	"gopkg.in/yaml.v3"
)

// Retriever names, as used in Config.Retrievers, fusion weights and the
// candidate lists of a search response.
const (
	BM25  = "bm25"
	Dense = "dense"
)

// Defaults applied by DefaultConfig.
const (
	DefaultListen    = "127.0.0.1:8099"
	DefaultK1        = 0.9
	DefaultB         = 0.4
	DefaultModel     = "lsa-256"
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	DefaultCacheDir  = ".tune-cache"
	DefaultHits      = 10 // hits returned when a request leaves k at 0
)

// Config is the engine configuration, read once at start. Load it with
// LoadConfig (DefaultConfig, then the file, then Validate); write one for a
// trial with WriteFile. Paths are absolute after LoadConfig: relative paths
// in a file resolve against the file's directory.
type Config struct {
	Corpus     corpus.Config      `yaml:"corpus" json:"corpus"`
	Chunk      corpus.ChunkConfig `yaml:"chunk" json:"chunk"`
	Retrievers []string           `yaml:"retrievers,flow" json:"retrievers"`
	BM25       BM25Config         `yaml:"bm25" json:"bm25"`
	Dense      DenseConfig        `yaml:"dense" json:"dense"`
	// Fusion holds the query-time fusion settings; a search request may
	// override them for itself.
	Fusion fusion.Params `yaml:"fusion" json:"fusion"`
	// Depth is the candidate depth per retriever; fusion.depth, when set,
	// takes precedence (set one of them).
	Depth int `yaml:"depth,omitempty" json:"depth,omitempty"`
	// MinScore drops fused hits scoring below it; when nothing is left the
	// response's routing is "no_results". Nil: no threshold.
	MinScore *float64 `yaml:"min_score,omitempty" json:"min_score,omitempty"`
	// Passage ranks chunks instead of documents (no collapse to documents).
	Passage bool `yaml:"passage,omitempty" json:"passage"`
	// CacheDir holds the on-disk index and the embedding cache.
	CacheDir string `yaml:"cache_dir,omitempty" json:"cache_dir"`
	// Listen is the HTTP address of `tune serve`; port 0 picks a free port.
	Listen string `yaml:"listen,omitempty" json:"listen"`
	// Log turns on `tune serve`'s query log (see LogConfig); nil: off.
	// The tuner's trials never log: it is dropped from their configs.
	Log *LogConfig `yaml:"log,omitempty" json:"log,omitempty"`
	// Rerank is the rerank stage (see RerankConfig); nil: off.
	Rerank *RerankConfig `yaml:"rerank,omitempty" json:"rerank,omitempty"`
	// Shadow runs a second engine config on a sample of live searches
	// after answering them, logging its answer and diff (see
	// ShadowConfig); nil: off. Needs Log.
	Shadow *ShadowConfig `yaml:"shadow,omitempty" json:"shadow,omitempty"`
}

// BM25Config holds the BM25 parameters. k1 and b apply when the index is
// opened or built (they do not key the index cache); each Engine scores
// with its own.
type BM25Config struct {
	K1 float64 `yaml:"k1" json:"k1"`
	B  float64 `yaml:"b" json:"b"`
	// MinScore is the floor of BM25 candidates: fusion drops those scoring
	// below it (fusion.Settings.Floors; explain still lists them); nil:
	// none. Query-time: a trial changing it replays.
	MinScore *float64 `yaml:"min_score,omitempty" json:"min_score,omitempty"`
}

// DenseConfig selects the embedder (see backend/embed) and its options.
type DenseConfig struct {
	Model     string   `yaml:"model" json:"model"`                           // lsa-<dim>, hash-<dim>, openai:<model>, file:<path>
	BaseURL   string   `yaml:"base_url,omitempty" json:"base_url,omitempty"` // openai: server base URL
	APIKeyEnv string   `yaml:"api_key_env,omitempty" json:"api_key_env,omitempty"`
	MinScore  *float64 `yaml:"min_score,omitempty" json:"min_score,omitempty"` // floor on the cosine of dense candidates, as BM25Config.MinScore; nil: none
	// MaxRetries is how often an openai: request that failed (429, 5xx,
	// network error) is retried, with exponential backoff from 0.5 s:
	// 0..MaxEmbedRetries; nil: embed.DefaultMaxRetries (4, about 7.5 s of
	// waiting before a dead embedding server fails the start).
	MaxRetries *int `yaml:"max_retries,omitempty" json:"max_retries,omitempty"`
}

// RerankConfig is the rerank stage: a reranker behind an HTTP /rerank
// endpoint (package rerank) reorders the first Window fused hits by a
// blend of its scores and the fused ones. Its scores are cached on disk in
// the config's cache_dir per (model, query, document text), so a search
// sends the reranker only pairs it has not scored before. A hit's text
// for the reranker is its chunk's (the whole document without chunking),
// after its document's title and a blank line when there is one.
type RerankConfig struct {
	// URL is the reranker's endpoint ("http://127.0.0.1:8787/rerank").
	URL string `yaml:"url" json:"url"`
	// Model is sent with each request (Cohere-shaped) and keys the cache.
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Format is the endpoint's shape: cohere (Cohere, Jina, vLLM,
	// Infinity; the default) or tei (text-embeddings-inference).
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// APIKeyEnv names the environment variable holding the reranker's
	// API key, sent as a bearer token ("": none).
	APIKeyEnv string `yaml:"api_key_env,omitempty" json:"api_key_env,omitempty"`
	// Enabled turns the stage on (nil: on when URL is set);
	// rerank.enabled.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// Window is how many fused hits are reranked, 1..rerank.MaxWindow
	// (0: rerank.DefaultWindow); rerank.window.
	Window int `yaml:"window,omitempty" json:"window,omitempty"`
	// Weight is the reranker's share of the blend, 0..1 (nil:
	// rerank.DefaultWeight, the reranker's order); rerank.weight.
	Weight *float64 `yaml:"weight,omitempty" json:"weight,omitempty"`
}

// On reports whether the stage runs: a url set and not turned off.
func (r *RerankConfig) On() bool { return r != nil && r.URL != "" && (r.Enabled == nil || *r.Enabled) }

// EffectiveWindow is Window with its default applied.
func (r *RerankConfig) EffectiveWindow() int {
	if r.Window == 0 {
		return rerank.DefaultWindow
	}
	return r.Window
}

// EffectiveWeight is Weight with its default applied.
func (r *RerankConfig) EffectiveWeight() float64 {
	if r.Weight == nil {
		return rerank.DefaultWeight
	}
	return *r.Weight
}

// MaxEmbedRetries bounds dense.max_retries.
const MaxEmbedRetries = 10

// DefaultConfig returns the defaults every config file overlays: BM25 (k1
// 0.9, b 0.4) fused by RRF (k 60) with lsa-256 vectors, whole documents,
// depth 100, listening on 127.0.0.1:8099.
func DefaultConfig() Config {
	return Config{
		Corpus:     corpus.Config{IDField: "_id", TitleField: "title", TextField: "text"},
		Retrievers: []string{BM25, Dense},
		BM25:       BM25Config{K1: DefaultK1, B: DefaultB},
		Dense:      DenseConfig{Model: DefaultModel, APIKeyEnv: DefaultAPIKeyEnv},
		Fusion: fusion.Params{
			Method:        fusion.DefaultMethod,
			K:             fusion.DefaultRankConstant,
			Normalization: fusion.DefaultNormalization,
		},
		CacheDir: DefaultCacheDir,
		Listen:   DefaultListen,
	}
}

// Has reports whether retriever name is enabled.
func (c Config) Has(name string) bool {
	for _, r := range c.Retrievers {
		if r == name {
			return true
		}
	}
	return false
}

// FusionParams returns the effective fusion settings: Fusion with the
// candidate depth filled from Depth and every unset field defaulted.
func (c Config) FusionParams() fusion.Params {
	p := c.Fusion.Override(nil)
	if p.Depth == 0 {
		p.Depth = c.Depth
	}
	return p.WithDefaults()
}

// FusionSettings returns the settings c ranks every request with:
// FusionParams with an explicit weight for every enabled retriever (so that
// a per-request override built from them inherits no weight from a running
// configuration), the floors bm25.min_score and dense.min_score of the
// enabled retrievers that set one, MinScore, Passage and the rerank stage
// when on. The tuner's replay fuses a trial under them.
func (c Config) FusionSettings() fusion.Settings {
	p := c.FusionParams()
	w := make(map[string]float64, len(c.Retrievers))
	for _, r := range c.Retrievers {
		w[r] = p.Weight(r)
	}
	p.Weights = w
	s := fusion.Settings{Fusion: p, Passage: c.Passage}
	for r, floor := range map[string]*float64{BM25: c.BM25.MinScore, Dense: c.Dense.MinScore} {
		if floor != nil && c.Has(r) {
			if s.Floors == nil {
				s.Floors = map[string]float64{}
			}
			s.Floors[r] = *floor
		}
	}
	if c.MinScore != nil {
		m := *c.MinScore
		s.MinScore = &m
	}
	if c.Rerank.On() {
		s.Rerank = &fusion.RerankSettings{Window: c.Rerank.EffectiveWindow(), Weight: c.Rerank.EffectiveWeight()}
	}
	return s
}

// FieldError is one problem of a configuration: the dotted field it
// concerns and what is wrong. LoadConfig fills Line and Column from the
// file when the field appears in it.
type FieldError struct {
	Field   string
	Problem string
	Line    int
	Column  int
}

// Error returns "field: problem".
func (e *FieldError) Error() string { return e.Field + ": " + e.Problem }

// ConfigError lists every problem of a configuration.
type ConfigError struct {
	File     string // empty for a Config that came from no file
	Problems []*FieldError
}

// Error returns one problem per line, each "FILE:LINE:COL: field: problem"
// when the position is known.
func (e *ConfigError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case e.File != "" && p.Line > 0:
			fmt.Fprintf(&b, "%s:%d:%d: ", e.File, p.Line, p.Column)
		case e.File != "":
			fmt.Fprintf(&b, "%s: ", e.File)
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the problems, so errors.As finds each *FieldError.
func (e *ConfigError) Unwrap() []error {
	errs := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		errs[i] = p
	}
	return errs
}

// Validate reports every problem of c at once as a *ConfigError, or nil.
func (c Config) Validate() error {
	var probs []*FieldError
	add := func(field, format string, args ...any) {
		probs = append(probs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if c.Corpus.Path == "" {
		add("corpus.path", "required")
	}
	switch c.Corpus.Format {
	case "", corpus.FormatBEIR, corpus.FormatJSONL, corpus.FormatDir:
	default:
		add("corpus.format", "unknown format %q (want beir, jsonl or dir)", c.Corpus.Format)
	}
	if c.Chunk.Size < 0 {
		add("chunk.size", "must be >= 0 (got %d)", c.Chunk.Size)
	}
	if c.Chunk.Overlap < 0 || (c.Chunk.Size > 0 && c.Chunk.Overlap >= c.Chunk.Size) {
		add("chunk.overlap", "must be >= 0 and < chunk.size (got %d with size %d)", c.Chunk.Overlap, c.Chunk.Size)
	}
	if c.Chunk.Size == 0 && c.Chunk.Overlap != 0 {
		add("chunk.overlap", "must be 0 for whole documents (chunk.size 0)")
	}
	if len(c.Retrievers) == 0 {
		add("retrievers", "need at least one of %q, %q", BM25, Dense)
	}
	seen := map[string]bool{}
	for i, r := range c.Retrievers {
		if r != BM25 && r != Dense {
			add(fmt.Sprintf("retrievers[%d]", i), "unknown retriever %q (want %q or %q)", r, BM25, Dense)
		}
		if seen[r] {
			add(fmt.Sprintf("retrievers[%d]", i), "%q listed twice", r)
		}
		seen[r] = true
	}
	if !(c.BM25.K1 >= 0 && c.BM25.K1 <= 10) {
		add("bm25.k1", "must be in [0, 10] (got %v)", c.BM25.K1)
	}
	if !(c.BM25.B >= 0 && c.BM25.B <= 1) {
		add("bm25.b", "must be in [0, 1] (got %v)", c.BM25.B)
	}
	for _, f := range []struct {
		field string
		v     *float64
	}{{"min_score", c.MinScore}, {"bm25.min_score", c.BM25.MinScore}, {"dense.min_score", c.Dense.MinScore}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			add(f.field, "must be a finite number (got %v)", *f.v)
		}
	}
	if u, err := url.Parse(c.Dense.BaseURL); err == nil && u.User != nil {
		// No credential in a URL (user:password@ or a token as the user):
		// the URL is printed in errors and logs.
		add("dense.base_url", "a URL with credentials (user:password@): secrets are read only from environment variables (name one with api_key_env)")
	}
	if r := c.Dense.MaxRetries; r != nil && (*r < 0 || *r > MaxEmbedRetries) {
		add("dense.max_retries", "must be in [0, %d] (got %d)", MaxEmbedRetries, *r)
	}
	if r := c.Rerank; r != nil {
		if r.Enabled != nil && *r.Enabled && r.URL == "" {
			add("rerank.url", "required when rerank is enabled (the reranker's /rerank endpoint)")
		}
		if r.Format != "" && r.Format != string(rerank.FormatCohere) && r.Format != string(rerank.FormatTEI) {
			add("rerank.format", "must be one of %s (got %q)", strings.Join(rerank.Formats, ", "), r.Format)
		}
		if r.Window < 0 || r.Window > rerank.MaxWindow {
			add("rerank.window", "must be between 1 and %d (got %d)", rerank.MaxWindow, r.Window)
		}
		if w := r.Weight; w != nil && !(*w >= 0 && *w <= 1) {
			add("rerank.weight", "must be between 0 and 1 (got %v)", *w)
		}
	}
	if c.Has(Dense) && c.Dense.Model == "" {
		add("dense.model", "required when retrievers include %q", Dense)
	}
	if err := c.Fusion.Validate(); err != nil {
		var ve *fusion.ValidationError
		if errors.As(err, &ve) {
			for _, p := range ve.Problems {
				add("fusion."+p.Field, "%s", p.Problem)
			}
		} else {
			add("fusion", "%v", err)
		}
	}
	if len(c.Retrievers) > 0 && c.Fusion.Validate() == nil {
		allZero := true
		for _, r := range c.Retrievers {
			if c.Fusion.Weight(r) != 0 {
				allZero = false
			}
		}
		if allZero {
			add("fusion.weights", "every fused retriever's weight is 0 (%s): every fused score would be 0 and the ranking a tie; give one a weight > 0", strings.Join(c.Retrievers, ", "))
		}
	}
	// A weight for a known retriever that is not enabled is kept and
	// unused: a trial that turns a retriever off ("retrievers": ["bm25"])
	// inherits the baseline's weight for it. A name that is no retriever
	// at all is a typo.
	for name := range c.Fusion.Weights {
		if name != BM25 && name != Dense {
			add("fusion.weights."+name, "unknown retriever %q (want %s or %s)", name, BM25, Dense)
		}
	}
	if c.Depth < 0 {
		add("depth", "must be >= 0 (got %d)", c.Depth)
	}
	if c.Depth > 0 && c.Fusion.Depth > 0 && c.Depth != c.Fusion.Depth {
		add("depth", "conflicts with fusion.depth (%d vs %d): set one of them", c.Depth, c.Fusion.Depth)
	}
	if c.FusionParams().Depth > MaxDepth {
		add("depth", "must be <= %d (got %d)", MaxDepth, c.FusionParams().Depth)
	}
	if c.CacheDir == "" {
		add("cache_dir", "required")
	}
	if c.Listen == "" {
		add("listen", "required (e.g. %q)", DefaultListen)
	} else if msg := CheckListen(c.Listen); msg != "" {
		add("listen", "%s", msg)
	}
	probs = append(probs, c.Log.problems()...)
	probs = append(probs, c.Shadow.problems(c.Log != nil)...)
	if len(probs) == 0 {
		return nil
	}
	return &ConfigError{Problems: probs}
}

// CheckListen says what is wrong with a listen address, or "": it must be
// HOST:PORT (HOST an IP address, a host name or empty for every interface,
// PORT a number from 0 to 65535, 0 picking a free port). Whether the port
// is free is only known when listening.
func CheckListen(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("want HOST:PORT such as %q (got %q: %v)", DefaultListen, addr, strings.TrimPrefix(err.Error(), "address "+addr+": "))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || port != strconv.Itoa(n) {
		return fmt.Sprintf("port must be a number from 0 to 65535 (got %q in %q)", port, addr)
	}
	if strings.ContainsFunc(host, func(r rune) bool { return r <= ' ' || r == '/' || r == 0x7f }) {
		return fmt.Sprintf("host %q is neither an IP address nor a host name", host)
	}
	return ""
}

// MaxDepth bounds the candidate depth per retriever and the hits per request.
const MaxDepth = 10000

// LoadConfig reads the YAML engine configuration at path over
// DefaultConfig, resolves relative paths against the file's directory and
// validates it. Unknown keys and invalid values are reported together, each
// as "FILE:LINE:COL: field: problem".
func LoadConfig(path string) (Config, error) {
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return Config{}, fmt.Errorf("load config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, fmt.Errorf("load config: %w", err)
	}
	return ParseConfig(data, path, filepath.Dir(abs))
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// ParseConfig is LoadConfig on data already read; file names it in errors
// and relative paths resolve against baseDir.
func ParseConfig(data []byte, file, baseDir string) (Config, error) {
	c := DefaultConfig()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return c, &ConfigError{File: file, Problems: yamlProblems(err)}
	}
	if line := yamldoc.Extra(data); line > 0 {
		return c, &ConfigError{File: file, Problems: []*FieldError{{Field: "yaml", Line: line, Column: 1, Problem: "a second YAML document: the file must hold one (remove the \"---\" and what follows it, or merge it into the first)"}}}
	}
	if len(root.Content) > 0 {
		if probs := schemaProblems(root.Content[0]); len(probs) > 0 {
			return c, &ConfigError{File: file, Problems: probs}
		}
	}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil {
			return c, &ConfigError{File: file, Problems: yamlProblems(err)}
		}
	}
	c.resolvePaths(baseDir)
	if c.Corpus.Format == "" {
		c.Corpus.Format = corpus.FormatJSONL
		if st, err := os.Stat(c.Corpus.Path); err == nil && st.IsDir() {
			c.Corpus.Format = corpus.FormatDir
		}
	}
	if err := c.Validate(); err != nil {
		ce := err.(*ConfigError)
		ce.File = file
		for _, p := range ce.Problems {
			p.Line, p.Column = position(&root, p.Field)
		}
		return c, ce
	}
	return c, nil
}

// schemaProblems checks a config document's keys and value types before
// it is decoded (yamldoc.Schema, the check settings apply to the same keys
// under backend.engine): an integer setting refuses 2.5 (which yaml.v3
// would truncate) and 1e999, a number refuses .nan and .inf, and a key
// that looks secret is refused.
func schemaProblems(doc *yaml.Node) []*FieldError {
	var probs []*FieldError
	for _, p := range (yamldoc.Schema{Tag: "yaml"}).Check(doc, reflect.TypeFor[Config](), "") {
		field := p.Field
		if field == "" {
			field = "config"
		}
		probs = append(probs, &FieldError{Field: field, Problem: p.Msg, Line: p.Node.Line, Column: p.Node.Column})
	}
	return probs
}

// yamlProblems turns a yaml.v3 error into positioned problems.
func yamlProblems(err error) []*FieldError {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	probs := make([]*FieldError, 0, len(msgs))
	for _, m := range msgs {
		p := &FieldError{Field: "yaml", Problem: strings.TrimPrefix(m, "yaml: ")}
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			p.Line, _ = strconv.Atoi(sm[1])
			p.Column = 1
			p.Problem = sm[2]
			if f, ok := strings.CutPrefix(p.Problem, "field "); ok {
				if name, _, ok := strings.Cut(f, " not found in type"); ok {
					p.Field, p.Problem = name, "unknown key"
				}
			}
		}
		probs = append(probs, p)
	}
	return probs
}

// position finds the line and column of a dotted field ("fusion.k",
// "retrievers[1]") in a YAML document, falling back to its closest present
// parent; 0, 0 when absent.
func position(root *yaml.Node, field string) (int, int) {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line, col := 0, 0
	for _, part := range strings.Split(field, ".") {
		name, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			name = part[:i]
			idx, _ = strconv.Atoi(part[i+1 : len(part)-1])
		}
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				line, col = n.Content[i].Line, n.Content[i].Column
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			break
		}
		n = next
		if idx >= 0 && n.Kind == yaml.SequenceNode && idx < len(n.Content) {
			n = n.Content[idx]
			line, col = n.Line, n.Column
		}
	}
	return line, col
}

func (c *Config) resolvePaths(baseDir string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(baseDir, p)
	}
	c.Corpus.Path = abs(c.Corpus.Path)
	c.CacheDir = abs(c.CacheDir)
	if c.Log != nil {
		c.Log.Path = abs(c.Log.Path)
	}
	if c.Shadow != nil {
		c.Shadow.Config = abs(c.Shadow.Config)
	}
	c.Fusion.Policy = abs(c.Fusion.Policy)
	if p, ok := strings.CutPrefix(c.Dense.Model, "file:"); ok {
		c.Dense.Model = "file:" + abs(p)
	}
}

// WriteFile writes c as YAML to path (atomically: a temporary file renamed
// over path), for `tune serve --config path` to read.
func (c Config) WriteFile(path string) error {
	data, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := atomicfile.Replace(path, data, 0o644); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}
