package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/internal/yamldoc"

	"github.com/fusiontune/fusiontune/internal/plainnum"
	"gopkg.in/yaml.v3"
)

// ExperimentFile is a parsed experiment file: a baseline, named variants (a
// shortlist), grids (cartesian products over the baseline) and a search
// space for the samplers.
type ExperimentFile struct {
	Path        string
	Hash        string // sha256 of the file's bytes
	Raw         []byte
	Name        string
	Description string
	Seed        int64
	Baseline    *Variant
	Variants    []Variant
	Grid        []GridAxis
	Space       []SpaceParam
	// Trials is the sampler's budget; Sampler names it (random, tpe, cmaes).
	Trials  int
	Sampler string
	// Pruning is successive halving on query subsets for sampled trials;
	// nil when the file has no pruning key.
	Pruning *Pruning

	gridPos string
}

// Variant is a named set of parameters. Variants other than the baseline
// are applied on top of the baseline.
type Variant struct {
	Name   string
	Params Params
	Pos    string // file:line:col of its definition
}

// GridAxis is one parameter of a grid with the values to try.
type GridAxis struct {
	Param  string
	Values []any
}

// SpaceParam is one parameter of a sampler's search space.
type SpaceParam struct {
	Param   string
	Type    string // int, float, log_float, categorical
	Low     float64
	High    float64
	Step    float64
	Choices []any
}

// DefaultSeed is used when an experiment file sets none.
const DefaultSeed = 42

// LoadExperimentFile reads and validates an experiment file (JSON or YAML).
// Every problem is reported at once, as a ProblemList naming
// file:line:column and field.
func LoadExperimentFile(path string) (*ExperimentFile, error) {
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	return ParseExperimentFile(path, data)
}

// ParseExperimentFile parses an experiment file's bytes; path is used in
// error messages.
func ParseExperimentFile(path string, data []byte) (*ExperimentFile, error) {
	sum := sha256.Sum256(data)
	ef := &ExperimentFile{Path: path, Raw: data, Hash: hex.EncodeToString(sum[:]), Seed: DefaultSeed}
	ps := &problems{file: path}
	root, err := experimentRoot(ps, path, data)
	if err != nil {
		return nil, err
	}
	forEachKey(ps, root, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			ef.Name = scalarString(ps, v, key)
		case "description":
			ef.Description = scalarString(ps, v, key)
		case "seed":
			if n, ok := scalarInt(ps, v, key); ok {
				ef.Seed = int64(n)
			}
		case "trials":
			if n, ok := scalarInt(ps, v, key); ok {
				if n <= 0 || n > MaxTrials {
					ps.at(v, key, "must be between 1 and %d (got %d)", MaxTrials, n)
				}
				ef.Trials = n
			}
		case "sampler":
			ef.Sampler = scalarString(ps, v, key)
			if msg := backend.OneOf("grid", "random", "tpe", "cmaes")(ef.Sampler); ef.Sampler != "" && msg != "" {
				ps.at(v, key, "%s", msg)
			}
		case "baseline":
			b := parseVariant(ps, v, key, "baseline", false)
			ef.Baseline = &b
		case "experiments":
			ef.Variants = parseVariants(ps, v, key)
		case "grid":
			ef.gridPos = fmt.Sprintf("%s:%d:%d", path, v.Line, v.Column)
			ef.Grid = parseGrid(ps, v, key)
		case "space":
			ef.Space = parseSpace(ps, v, key)
		case "pruning":
			ef.Pruning = parsePruning(ps, v, key)
		default:
			ps.at(k, key, "unknown key (want name, description, seed, baseline, experiments, grid, space, trials, sampler, pruning)")
		}
	})
	if ef.Baseline == nil && len(ef.Variants) == 0 && len(ef.Grid) == 0 && len(ef.Space) == 0 {
		ps.at(root, "", "nothing to run: expected at least one of baseline, experiments, grid or space")
	}
	if len(ef.Space) > 0 && ef.Trials == 0 {
		ps.at(root, "trials", "a search space needs a trials budget")
	}
	checkSamplerKeys(ps, root, ef)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return ef, nil
}

// experimentRoot decodes an experiment file into its root object. A file
// that is not YAML, holds a second document, is empty or is not an object
// is an error naming the place.
func experimentRoot(ps *problems, path string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, Problems{yamlSyntaxProblem(path, err)}
	}
	if line := yamldoc.Extra(data); line > 0 {
		return nil, Problems{{Pos: fmt.Sprintf("%s:%d", path, line), Msg: "a second YAML document: the file must hold one (remove the \"---\" and what follows it, or merge it into the first)"}}
	}
	if len(doc.Content) == 0 {
		ps.at(nil, "", "empty experiment file: expected an object with baseline, experiments, grid or space")
		return nil, ps.err()
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		ps.at(root, "", "expected an object with baseline, experiments, grid or space")
		return nil, ps.err()
	}
	return root, nil
}

// parseVariants reads the experiments list (v, at field key): a variant
// per item, each named, no name used twice.
func parseVariants(ps *problems, v *yaml.Node, key string) []Variant {
	if v.Kind != yaml.SequenceNode {
		ps.at(v, key, "expected a list of {name, params}")
		return nil
	}
	var variants []Variant
	names := map[string]int{}
	for i, item := range v.Content {
		f := fmt.Sprintf("%s[%d]", key, i)
		variant := parseVariant(ps, item, f, "", true)
		if j, dup := names[variant.Name]; dup && variant.Name != "" {
			ps.at(item, joinField(f, "name"), "name %q already used by experiments[%d]", variant.Name, j)
		}
		names[variant.Name] = i
		variants = append(variants, variant)
	}
	return variants
}

// forEachKey walks a mapping node, reporting duplicate keys.
func forEachKey(ps *problems, m *yaml.Node, field string, fn func(key string, k, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			ps.at(k, joinField(field, k.Value), "duplicate key (first defined on line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		fn(k.Value, k, v)
	}
}

func parseVariant(ps *problems, n *yaml.Node, field, defaultName string, needName bool) Variant {
	v := Variant{Name: defaultName, Params: Params{}, Pos: fmt.Sprintf("%s:%d:%d", ps.file, n.Line, n.Column)}
	if n.Kind != yaml.MappingNode {
		ps.at(n, field, "expected an object {name, params}")
		return v
	}
	hasParams := false
	forEachKey(ps, n, field, func(key string, k, val *yaml.Node) {
		f := joinField(field, key)
		switch key {
		case "name":
			v.Name = scalarString(ps, val, f)
		case "params":
			hasParams = true
			parseParams(ps, val, f, "", v.Params)
		default:
			ps.at(k, f, "unknown key (want name, params)")
		}
	})
	if needName && strings.TrimSpace(v.Name) == "" {
		ps.at(n, joinField(field, "name"), "missing: every experiment needs a name")
	}
	if !hasParams && needName {
		ps.at(n, joinField(field, "params"), "missing: every experiment needs params")
	}
	return v
}

// parseParams flattens a (possibly nested) params object into dotted keys,
// checking every known parameter.
func parseParams(ps *problems, n *yaml.Node, field, prefix string, out Params) {
	if n.Kind != yaml.MappingNode {
		ps.at(n, field, "expected an object of parameters")
		return
	}
	forEachKey(ps, n, field, func(key string, k, v *yaml.Node) {
		name := key
		if prefix != "" {
			name = prefix + "." + key
		}
		f := joinField(field, key)
		if v.Kind == yaml.MappingNode && !strings.HasPrefix(name, CustomPrefix) {
			parseParams(ps, v, f, name, out)
			return
		}
		if _, dup := out[name]; dup {
			ps.at(k, f, "parameter %q given twice", name)
			return
		}
		val, ok := decodeValue(ps, v, f)
		if !ok {
			return
		}
		if strings.HasPrefix(name, CustomPrefix) {
			out[name] = val
			return
		}
		spec, known := LookupParam(name)
		if !known {
			ps.at(k, f, "%s", unknownParam(name))
			return
		}
		norm, msg := spec.Parse(val)
		if msg != "" {
			ps.at(v, f, "%s", msg)
			return
		}
		out[name] = norm
	})
}

// decodeValue converts a scalar or list node to float64, string, bool,
// []any or (for custom.* keys) map[string]any.
func decodeValue(ps *problems, n *yaml.Node, field string) (any, bool) {
	switch n.Kind {
	case yaml.AliasNode:
		ps.at(n, field, "YAML aliases are not allowed in experiment files")
		return nil, false
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			f, ok := plainnum.Float(n.Value)
			if !ok {
				ps.at(n, field, "invalid number %q: write a plain decimal number (no sign +, _ separators, hexadecimal or infinity)", n.Value)
				return nil, false
			}
			return f, true
		case "!!bool":
			return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", true
		case "!!null":
			ps.at(n, field, "must not be null")
			return nil, false
		}
		return n.Value, true
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, ok := decodeValue(ps, c, fmt.Sprintf("%s[%d]", field, i))
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yaml.MappingNode:
		out := map[string]any{}
		var ok = true
		forEachKey(ps, n, field, func(key string, _, v *yaml.Node) {
			val, good := decodeValue(ps, v, joinField(field, key))
			ok = ok && good
			out[key] = val
		})
		return out, ok
	}
	ps.at(n, field, "unsupported value")
	return nil, false
}

func scalarString(ps *problems, n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		ps.at(n, field, "must be a string")
		return ""
	}
	return n.Value
}

func scalarInt(ps *problems, n *yaml.Node, field string) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		ps.at(n, field, "must be an integer (got %q)", n.Value)
		return 0, false
	}
	v, ok := plainnum.Int(n.Value)
	if !ok {
		ps.at(n, field, "must be a plain decimal integer (got %q)", n.Value)
		return 0, false
	}
	return v, true
}
