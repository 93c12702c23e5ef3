package sampler

import (
	"fmt"
	"math"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/experiments"
)

// dim is one parameter of a search space with its goptuna distribution.
type dim struct {
	sp           experiments.SpaceParam
	distribution any
	labels       []string // categorical: FormatValue of each choice
}

// newSpace converts an experiment file's search space to goptuna
// distributions: int → IntUniform (StepIntUniform with a step), float →
// Uniform (DiscreteUniform with a step), log_float → LogUniform,
// categorical → Categorical over the choices' printed forms.
func newSpace(space []experiments.SpaceParam) ([]dim, error) {
	if len(space) == 0 {
		return nil, fmt.Errorf("search space: empty")
	}
	out := make([]dim, 0, len(space))
	seen := map[string]bool{}
	for _, sp := range space {
		if seen[sp.Param] {
			return nil, fmt.Errorf("search space: %s listed twice", sp.Param)
		}
		seen[sp.Param] = true
		d, err := newDim(sp)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// newDim converts one parameter of the search space to its goptuna
// distribution (see newSpace), checking its bounds, step and choices.
func newDim(sp experiments.SpaceParam) (dim, error) {
	d := dim{sp: sp}
	bad := func(format string, args ...any) (dim, error) {
		return dim{}, fmt.Errorf("search space: %s: %s", sp.Param, fmt.Sprintf(format, args...))
	}
	if sp.Type != "categorical" && !(sp.Low < sp.High) {
		return bad("low must be < high (got %v, %v)", sp.Low, sp.High)
	}
	switch sp.Type {
	case "int":
		lo, hi := math.Ceil(sp.Low), math.Floor(sp.High)
		if lo != sp.Low || hi != sp.High {
			return bad("an int range needs integer bounds (got %v, %v)", sp.Low, sp.High)
		}
		if sp.Step > 0 {
			if sp.Step != math.Trunc(sp.Step) {
				return bad("an int step must be an integer (got %v)", sp.Step)
			}
			d.distribution = goptuna.StepIntUniformDistribution{Low: int(lo), High: int(hi), Step: int(sp.Step)}
		} else {
			d.distribution = goptuna.IntUniformDistribution{Low: int(lo), High: int(hi)}
		}
	case "float":
		if sp.Step > 0 {
			d.distribution = goptuna.DiscreteUniformDistribution{Low: sp.Low, High: sp.High, Q: sp.Step}
		} else {
			d.distribution = goptuna.UniformDistribution{Low: sp.Low, High: sp.High}
		}
	case "log_float":
		if sp.Low <= 0 {
			return bad("log_float needs low > 0 (got %v)", sp.Low)
		}
		if sp.Step > 0 {
			return bad("log_float takes no step")
		}
		d.distribution = goptuna.LogUniformDistribution{Low: sp.Low, High: sp.High}
	case "categorical":
		if len(sp.Choices) == 0 {
			return bad("categorical needs choices")
		}
		for _, c := range sp.Choices {
			d.labels = append(d.labels, experiments.FormatValue(c))
		}
		d.distribution = goptuna.CategoricalDistribution{Choices: d.labels}
	default:
		return bad("unknown type %q (want int, float, log_float or categorical)", sp.Type)
	}
	return d, nil
}

// suggest asks trial for this dimension's value and returns it in the form
// experiments.Params holds (numbers as float64, clamped into the range).
func (d dim) suggest(t *goptuna.Trial) (any, error) {
	name := d.sp.Param
	switch dist := d.distribution.(type) {
	case goptuna.IntUniformDistribution:
		v, err := t.SuggestInt(name, dist.Low, dist.High)
		return d.clamp(float64(v)), err
	case goptuna.StepIntUniformDistribution:
		v, err := t.SuggestStepInt(name, dist.Low, dist.High, dist.Step)
		return d.clamp(float64(v)), err
	case goptuna.UniformDistribution:
		v, err := t.SuggestFloat(name, dist.Low, dist.High)
		return d.clamp(v), err
	case goptuna.DiscreteUniformDistribution:
		v, err := t.SuggestDiscreteFloat(name, dist.Low, dist.High, dist.Q)
		return d.clamp(v), err
	case goptuna.LogUniformDistribution:
		v, err := t.SuggestLogFloat(name, dist.Low, dist.High)
		return d.clamp(v), err
	case goptuna.CategoricalDistribution:
		v, err := t.SuggestCategorical(name, dist.Choices)
		if err != nil {
			return nil, err
		}
		for i, l := range d.labels {
			if l == v {
				return d.sp.Choices[i], nil
			}
		}
		return nil, fmt.Errorf("%s: sampler returned unknown choice %q", name, v)
	}
	return nil, fmt.Errorf("%s: unsupported distribution %T", name, d.distribution)
}

// clamp keeps a sampled number inside [low, high], and integral for ints:
// samplers work on continuous relaxations whose rounding may overshoot.
func (d dim) clamp(v float64) float64 {
	if d.sp.Type == "int" {
		v = math.Round(v)
	}
	return min(max(v, d.sp.Low), d.sp.High)
}

// internal converts a parameter value to goptuna's internal representation,
// or reports false when the value lies outside this dimension.
func (d dim) internal(v any) (float64, bool) {
	if d.sp.Type == "categorical" {
		label := experiments.FormatValue(v)
		for i, l := range d.labels {
			if l == label {
				return float64(i), true
			}
		}
		return 0, false
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || f < d.sp.Low || f > d.sp.High {
		return 0, false
	}
	if d.sp.Type == "int" && f != math.Trunc(f) {
		return 0, false
	}
	return f, true
}

// searchSpace lists the distributions by parameter name.
func searchSpace(dims []dim) map[string]any {
	out := make(map[string]any, len(dims))
	for _, d := range dims {
		out[d.sp.Param] = d.distribution
	}
	return out
}
