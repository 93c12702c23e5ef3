package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// CustomPrefix starts the free-form parameters of external backends'
// config templates (experiments.CustomPrefix): the engine ignores them.
const CustomPrefix = "custom."

// WeightPrefix starts a retriever's fusion weight parameter
// ("fusion.weights.bm25"), as experiments.WeightPrefix.
const WeightPrefix = "fusion.weights."

// WithParams returns c with a trial's parameters set, validated as a
// whole: what ParseConfig returns for c's YAML with each dotted parameter
// set at its path (render.YAMLOverlay), without writing or reading YAML.
// Params are the flattened names of the experiment files ("fusion.k",
// "fusion.weights.dense", "chunk.size"; see ParamNames), plus the engine's
// query-time keys fusion.depth, passage, bm25.min_score and
// dense.min_score; custom.* parameters are ignored.
//
// Values are those experiment files decode to: numbers as float64 (or
// int), strings, true or false, lists of strings ([]string or []any). An
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
			if w, msg = number(params[name]); msg == "" {
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
// weights as the pattern "fusion.weights.<retriever>".
func ParamNames() []string {
	names := slices.Sorted(maps.Keys(paramSetters))
	return append(names, WeightPrefix+"<retriever>")
}

// paramSetter sets one parameter on a Config, or returns what is wrong
// with the value.
type paramSetter func(c *Config, v any) string

var paramSetters = map[string]paramSetter{
	"fusion.method":        stringParam(func(c *Config) *fusion.Method { return &c.Fusion.Method }),
	"fusion.k":             floatParam(func(c *Config) *float64 { return &c.Fusion.K }),
	"fusion.normalization": stringParam(func(c *Config) *fusion.Normalization { return &c.Fusion.Normalization }),
	"fusion.depth":         intParam(func(c *Config) *int { return &c.Fusion.Depth }),
	"depth":                intParam(func(c *Config) *int { return &c.Depth }),
	"min_score":            optionalFloatParam(func(c *Config) **float64 { return &c.MinScore }),
	"passage":              boolParam(func(c *Config) *bool { return &c.Passage }),
	"retrievers":           stringsParam(func(c *Config) *[]string { return &c.Retrievers }),
	"chunk.size":           intParam(func(c *Config) *int { return &c.Chunk.Size }),
	"chunk.overlap":        intParam(func(c *Config) *int { return &c.Chunk.Overlap }),
	"dense.model":          stringParam(func(c *Config) *string { return &c.Dense.Model }),
	"dense.min_score":      optionalFloatParam(func(c *Config) **float64 { return &c.Dense.MinScore }),
	"bm25.k1":              floatParam(func(c *Config) *float64 { return &c.BM25.K1 }),
	"bm25.b":               floatParam(func(c *Config) *float64 { return &c.BM25.B }),
	"bm25.min_score":       optionalFloatParam(func(c *Config) **float64 { return &c.BM25.MinScore }),
}

func floatParam(field func(*Config) *float64) paramSetter {
	return func(c *Config, v any) string {
		f, msg := number(v)
		if msg == "" {
			*field(c) = f
		}
		return msg
	}
}

func optionalFloatParam(field func(*Config) **float64) paramSetter {
	return func(c *Config, v any) string {
		f, msg := number(v)
		if msg == "" {
			*field(c) = &f
		}
		return msg
	}
}

func intParam(field func(*Config) *int) paramSetter {
	return func(c *Config, v any) string {
		if i, ok := v.(int); ok {
			*field(c) = i
			return ""
		}
		f, msg := number(v)
		if msg != "" {
			return strings.Replace(msg, "a number", "an integer", 1)
		}
		// -2^63 <= f < 2^63: the range of int64 (int is 64 bits wide here).
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return fmt.Sprintf("must be an integer (got %s)", describe(v))
		}
		*field(c) = int(f)
		return ""
	}
}

func stringParam[T ~string](field func(*Config) *T) paramSetter {
	return func(c *Config, v any) string {
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be a string (got %s)", describe(v))
		}
		*field(c) = T(s)
		return ""
	}
}

func boolParam(field func(*Config) *bool) paramSetter {
	return func(c *Config, v any) string {
		b, ok := v.(bool)
		if !ok {
			return fmt.Sprintf("must be true or false (got %s)", describe(v))
		}
		*field(c) = b
		return ""
	}
}

func stringsParam(field func(*Config) *[]string) paramSetter {
	return func(c *Config, v any) string {
		var list []string
		switch x := v.(type) {
		case []string:
			list = slices.Clone(x)
		case []any:
			list = make([]string, len(x))
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					return fmt.Sprintf("must be a list of strings (item %d is %s)", i, describe(e))
				}
				list[i] = s
			}
		default:
			return fmt.Sprintf("must be a list of strings (got %s)", describe(v))
		}
		if list == nil {
			list = []string{} // as YAML decodes []
		}
		*field(c) = list
		return ""
	}
}

// number returns v as a float64: a float64, int or int64 value.
func number(v any) (float64, string) {
	switch x := v.(type) {
	case float64:
		return x, ""
	case int:
		return float64(x), ""
	case int64:
		return float64(x), ""
	}
	return 0, fmt.Sprintf("must be a number (got %s)", describe(v))
}

// describe names a parameter value in a problem.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case []any, []string:
		return "a list"
	case map[string]any:
		return "an object"
	case float64, int, int64, bool:
		return fmt.Sprint(x) // floats shortest, as FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprintf("a %T", v)
}
