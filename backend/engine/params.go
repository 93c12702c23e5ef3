package engine

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// CustomPrefix starts the free-form parameters of external backends'
// config templates (backend.CustomPrefix): the engine ignores them.
const CustomPrefix = backend.CustomPrefix

// WeightPrefix starts a retriever's fusion weight parameter
// ("fusion.weights.bm25"), backend.WeightPrefix.
const WeightPrefix = backend.WeightPrefix

// WithParams returns c with a trial's parameters set, validated as a
// whole: what ParseConfig returns for c's YAML with each dotted parameter
// set at its path (render.YAMLOverlay), without writing or reading YAML.
// Params are the flattened names of the experiment files ("fusion.k",
// "fusion.weights.dense", "chunk.size"; see ParamNames), plus the engine's
// query-time keys fusion.depth, passage, bm25.min_score and
// dense.min_score; custom.* parameters are ignored.
//
// Values are those experiment files decode to: numbers as float64 (or
// int), strings, true or false, lists of strings ([]string or []any), read
// by backend's typed accessors (backend.FloatValue and the like). An
// unknown parameter or a value of the wrong kind is a problem naming the
// parameter; all problems are returned at once as a *ConfigError (whose
// problems carry no position), and so are those of Validate, worded alike.
// WithParams is stricter than the YAML round trip in a few places, which
// experiment files reject anyway: an integer setting refuses 100.5 (YAML
// truncates it to 100), a string setting refuses a number (YAML reads 5 as
// "5"), and null is refused (YAML falls back to the default). A relative
// "file:" dense model is kept as given (ParseConfig resolves it against its
// base directory). c itself is not modified; on error the Config is zero.
func (c Config) WithParams(params map[string]any) (Config, error) {
	out := c
	out.Fusion.Weights = maps.Clone(c.Fusion.Weights)
	out.Retrievers = slices.Clone(c.Retrievers)
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	var probs []*FieldError
	for _, name := range names {
		if strings.HasPrefix(name, CustomPrefix) {
			continue
		}
		var msg string
		if set, ok := paramSetters[name]; ok {
			msg = set(&out, params[name])
		} else if r, ok := strings.CutPrefix(name, WeightPrefix); ok && r != "" && !strings.Contains(r, ".") {
			var w float64
			if w, msg = finiteValue(params[name]); msg == "" {
				if out.Fusion.Weights == nil {
					out.Fusion.Weights = map[string]float64{}
				}
				out.Fusion.Weights[r] = w
			}
		} else {
			msg = "unknown parameter (known: " + strings.Join(ParamNames(), ", ") + ")"
		}
		if msg != "" {
			probs = append(probs, &FieldError{Field: name, Problem: msg})
		}
	}
	if len(probs) > 0 {
		return Config{}, &ConfigError{Problems: probs}
	}
	if err := out.Validate(); err != nil {
		return Config{}, err
	}
	return out, nil
}

// ParamNames lists the parameters WithParams knows, sorted, with the
// weights as the pattern backend.WeightPattern: names of the parameter
// table (backend.LookupParam), each set on the Config field of the same
// YAML path.
func ParamNames() []string {
	names := slices.Sorted(maps.Keys(paramSetters))
	return append(names, backend.WeightPattern)
}

// paramSetter sets one parameter on a Config, or returns what is wrong
// with the value.
type paramSetter func(c *Config, v any) string

var paramSetters = map[string]paramSetter{
	backend.ParamFusionMethod:        stringParam(func(c *Config) *fusion.Method { return &c.Fusion.Method }),
	backend.ParamFusionK:             floatParam(func(c *Config) *float64 { return &c.Fusion.K }),
	backend.ParamFusionNormalization: stringParam(func(c *Config) *fusion.Normalization { return &c.Fusion.Normalization }),
	backend.ParamFusionDepth:         intParam(func(c *Config) *int { return &c.Fusion.Depth }),
	backend.ParamDepth:               intParam(func(c *Config) *int { return &c.Depth }),
	backend.ParamMinScore:            optionalFloatParam(func(c *Config) **float64 { return &c.MinScore }),
	backend.ParamPassage:             boolParam(func(c *Config) *bool { return &c.Passage }),
	backend.ParamRetrievers:          stringsParam(func(c *Config) *[]string { return &c.Retrievers }),
	backend.ParamChunkSize:           intParam(func(c *Config) *int { return &c.Chunk.Size }),
	backend.ParamChunkOverlap:        intParam(func(c *Config) *int { return &c.Chunk.Overlap }),
	backend.ParamDenseModel:          stringParam(func(c *Config) *string { return &c.Dense.Model }),
	backend.ParamDenseMinScore:       optionalFloatParam(func(c *Config) **float64 { return &c.Dense.MinScore }),
	backend.ParamBM25K1:              floatParam(func(c *Config) *float64 { return &c.BM25.K1 }),
	backend.ParamBM25B:               floatParam(func(c *Config) *float64 { return &c.BM25.B }),
	backend.ParamBM25MinScore:        optionalFloatParam(func(c *Config) **float64 { return &c.BM25.MinScore }),
	backend.ParamRerankEnabled:       setter(backend.BoolValue, func(c *Config, b bool) { c.rerankCopy().Enabled = &b }),
	backend.ParamRerankWindow:        setter(backend.IntValue, func(c *Config, n int) { c.rerankCopy().Window = n }),
	backend.ParamRerankWeight:        setter(backend.FloatValue, func(c *Config, w float64) { c.rerankCopy().Weight = &w }),
}

// rerankCopy makes c's rerank settings its own (a copy, so that the
// Config WithParams started from keeps its own) and returns them; a
// Config without them gets empty ones, which Validate asks a url of when
// enabled.
func (c *Config) rerankCopy() *RerankConfig {
	r := RerankConfig{}
	if c.Rerank != nil {
		r = *c.Rerank
	}
	c.Rerank = &r
	return c.Rerank
}

// setter returns a paramSetter that reads a value with get (one of
// backend's typed accessors) and stores it with set.
func setter[T any](get func(any) (T, string), set func(c *Config, v T)) paramSetter {
	return func(c *Config, v any) string {
		x, msg := get(v)
		if msg == "" {
			set(c, x)
		}
		return msg
	}
}

func floatParam(field func(*Config) *float64) paramSetter {
	return setter(finiteValue, func(c *Config, f float64) { *field(c) = f })
}

func optionalFloatParam(field func(*Config) **float64) paramSetter {
	return setter(finiteValue, func(c *Config, f float64) { *field(c) = &f })
}

// finiteValue is backend.FloatValue refusing NaN and ±Inf as a config
// file's value is refused (yamldoc.Schema), spelled as YAML spells them.
func finiteValue(v any) (float64, string) {
	f, msg := backend.FloatValue(v)
	if msg != "" {
		return f, msg
	}
	switch {
	case math.IsNaN(f):
		return f, `want a finite number (got ".nan")`
	case math.IsInf(f, 1):
		return f, `want a finite number (got ".inf")`
	case math.IsInf(f, -1):
		return f, `want a finite number (got "-.inf")`
	}
	return f, ""
}

func intParam(field func(*Config) *int) paramSetter {
	return setter(backend.IntValue, func(c *Config, i int) { *field(c) = i })
}

func stringParam[T ~string](field func(*Config) *T) paramSetter {
	return setter(backend.StringValue, func(c *Config, s string) { *field(c) = T(s) })
}

func boolParam(field func(*Config) *bool) paramSetter {
	return setter(backend.BoolValue, func(c *Config, b bool) { *field(c) = b })
}

func stringsParam(field func(*Config) *[]string) paramSetter {
	return setter(backend.StringsValue, func(c *Config, list []string) { *field(c) = list })
}
