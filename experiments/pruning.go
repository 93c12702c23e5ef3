package experiments

import (
	"math"

	"github.com/fusiontune/fusiontune/backend"
	"gopkg.in/yaml.v3"
)

// Pruning defaults.
const (
	// DefaultPruneFraction is the share of the queries a sampled trial is
	// first evaluated on.
	DefaultPruneFraction = 0.25
	// DefaultReductionFactor is successive halving's η: at each rung
	// roughly 1/η of the trials go on to η times more queries.
	DefaultReductionFactor = 3
)

// Pruning configures successive halving on query subsets: a sampled trial
// is evaluated on a seeded, category-stratified Fraction of the queries,
// then on Fraction×η, Fraction×η², … until the whole set, and stops (is
// pruned) at the first rung where it is not among the best 1/η of the
// trials that reached that rung.
type Pruning struct {
	Enabled         bool
	Fraction        float64
	ReductionFactor int
}

// parsePruning reads
//
//	pruning: {enabled: true, fraction: 0.25, reduction_factor: 3}
//
// Omitted keys take their defaults; enabled defaults to true when the
// pruning key is present.
func parsePruning(ps *problems, n *yaml.Node, field string) *Pruning {
	p := &Pruning{Enabled: true, Fraction: DefaultPruneFraction, ReductionFactor: DefaultReductionFactor}
	if n.Kind != yaml.MappingNode {
		ps.at(n, field, "expected an object {enabled, fraction, reduction_factor}")
		return p
	}
	forEachKey(ps, n, field, func(key string, k, v *yaml.Node) {
		f := joinField(field, key)
		switch key {
		case "enabled":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
				ps.at(v, f, "must be true or false (got %q)", v.Value)
				return
			}
			p.Enabled = v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
		case "fraction":
			x, ok := decodeValue(ps, v, f)
			fv, isNum := x.(float64)
			if ok && !isNum {
				ps.at(v, f, "must be a number between 0 and 1 (got %s)", backend.Describe(x))
				return
			}
			if isNum && (math.IsNaN(fv) || fv <= 0 || fv >= 1) {
				ps.at(v, f, "must be > 0 and < 1 (got %s)", FormatValue(fv))
				return
			}
			p.Fraction = fv
		case "reduction_factor":
			if n, ok := scalarInt(ps, v, f); ok {
				if n < 2 {
					ps.at(v, f, "must be an integer >= 2 (got %d)", n)
					return
				}
				p.ReductionFactor = n
			}
		default:
			ps.at(k, f, "unknown key (want enabled, fraction, reduction_factor)")
		}
	})
	return p
}

// checkSamplerKeys reports sampler settings that cannot take effect: a
// budget, a sampler or pruning without a search space, or a space with the
// grid sampler.
func checkSamplerKeys(ps *problems, root *yaml.Node, ef *ExperimentFile) {
	node := func(key string) *yaml.Node {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				return root.Content[i+1]
			}
		}
		return root
	}
	if len(ef.Space) == 0 {
		if ef.Trials > 0 {
			ps.at(node("trials"), "trials", "a trials budget needs a search space (space)")
		}
		if ef.Sampler != "" && ef.Sampler != "grid" {
			ps.at(node("sampler"), "sampler", "sampler %q needs a search space (space)", ef.Sampler)
		}
		if ef.Pruning != nil && ef.Pruning.Enabled {
			ps.at(node("pruning"), "pruning", "pruning applies to sampled trials: it needs a search space (space)")
		}
		return
	}
	if ef.Sampler == "grid" {
		ps.at(node("sampler"), "sampler", "the grid sampler takes no space: use grid, or sampler random, tpe or cmaes")
	}
}
