package experiments

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/paramtext"
	"gopkg.in/yaml.v3"
)

// parseGrid reads {param: [values]} keeping the file's key order, which is
// the order of the cartesian product (first key slowest).
func parseGrid(ps *problems, n *yaml.Node, field string) []GridAxis {
	if n.Kind != yaml.MappingNode {
		ps.at(n, field, "expected an object {parameter: [values]}")
		return nil
	}
	var axes []GridAxis
	forEachKey(ps, n, field, func(key string, k, v *yaml.Node) {
		f := joinField(field, key)
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			ps.at(v, f, "expected a non-empty list of values")
			return
		}
		if len(v.Content) > MaxTrials {
			// Refused before its values are read: such an axis alone
			// expands past the most trials a sweep may plan.
			ps.at(v, f, "%d values: a grid axis takes at most %d (the most trials a sweep may plan): split the grid or use a search space", len(v.Content), MaxTrials)
			return
		}
		axis := GridAxis{Param: key}
		if key == backend.WeightsParam {
			axis.Values = parseWeightsAxis(ps, v, f)
			axes = append(axes, axis)
			return
		}
		spec, known := LookupParam(key)
		if !known && !strings.HasPrefix(key, CustomPrefix) {
			ps.at(k, f, "%s", unknownParam(key))
			return
		}
		seen := make(map[string]bool, len(v.Content))
		for i, item := range v.Content {
			fi := fmt.Sprintf("%s[%d]", f, i)
			val, ok := decodeValue(ps, item, fi)
			if !ok {
				continue
			}
			if known {
				norm, msg := spec.Parse(val)
				if msg != "" {
					ps.at(item, fi, "%s", msg)
					continue
				}
				val = norm
			}
			// Values listed twice, found by their printed form in one
			// pass (an axis of 10,000 values was checked pair by pair).
			text := FormatValue(val)
			if seen[text] {
				ps.at(item, fi, "value %s listed twice", text)
			}
			seen[text] = true
			axis.Values = append(axis.Values, val)
		}
		axes = append(axes, axis)
	})
	return axes
}

// parseSpace reads the samplers' search space:
//
//	space:
//	  fusion.k: {type: int, low: 10, high: 100}
//	  fusion.weights.bm25: {type: float, low: 0, high: 1}
//	  bm25.k1: {type: log_float, low: 0.5, high: 3}
//	  fusion.method: {type: categorical, choices: [rrf, linear]}
func parseSpace(ps *problems, n *yaml.Node, field string) []SpaceParam {
	if n.Kind != yaml.MappingNode {
		ps.at(n, field, "expected an object {parameter: {type, low, high | choices}}")
		return nil
	}
	var out []SpaceParam
	forEachKey(ps, n, field, func(key string, k, v *yaml.Node) {
		f := joinField(field, key)
		spec, known := LookupParam(key)
		if !known {
			ps.at(k, f, "%s", unknownParam(key))
			return
		}
		if v.Kind != yaml.MappingNode {
			ps.at(v, f, "expected {type, low, high} or {type: categorical, choices}")
			return
		}
		sp, have := parseSpaceKeys(ps, v, f, key, spec)
		switch sp.Type {
		case "":
			ps.at(v, joinField(f, "type"), "missing (want int, float, log_float or categorical)")
		case "categorical":
			if n := have["step"]; n != nil {
				ps.at(n, joinField(f, "step"), "a categorical parameter takes no step")
			}
			if have["choices"] == nil {
				ps.at(v, joinField(f, "choices"), "missing: a categorical parameter needs choices")
			}
		default:
			checkSpaceRange(ps, v, f, spec, sp, have)
		}
		out = append(out, sp)
	})
	return out
}

// parseSpaceKeys reads the keys of one parameter's range or choices (v, at
// field f), reporting each bad value and unknown key. It returns the
// parameter and the nodes of the keys given (a step that is not a number
// is reported here and left out, so that it is not checked again).
func parseSpaceKeys(ps *problems, v *yaml.Node, f, key string, spec ParamSpec) (SpaceParam, map[string]*yaml.Node) {
	sp := SpaceParam{Param: key}
	have := map[string]*yaml.Node{}
	forEachKey(ps, v, f, func(kk string, kn, vv *yaml.Node) {
		ff := joinField(f, kk)
		have[kk] = vv
		switch kk {
		case "type":
			sp.Type = scalarString(ps, vv, ff)
			if msg := backend.OneOf("int", "float", "log_float", "categorical")(sp.Type); msg != "" {
				ps.at(vv, ff, "%s", msg)
			}
		case "low", "high", "step":
			x, ok := decodeValue(ps, vv, ff)
			fv, isNum := x.(float64)
			if ok && !isNum {
				ps.at(vv, ff, "must be a number")
			}
			switch kk {
			case "low":
				sp.Low = fv
			case "high":
				sp.High = fv
			case "step":
				sp.Step = fv
				if !ok || !isNum {
					delete(have, kk) // reported: not checked again below
				}
			}
		case "choices":
			sp.Choices = append(sp.Choices, parseChoices(ps, vv, ff, spec)...)
		default:
			ps.at(kn, ff, "unknown key (want type, low, high, step, choices)")
		}
	})
	return sp, have
}

// parseChoices reads a categorical parameter's choices (vv, at field ff):
// a non-empty list of values the parameter takes, normalized; each bad
// one is reported and left out.
func parseChoices(ps *problems, vv *yaml.Node, ff string, spec ParamSpec) []any {
	x, ok := decodeValue(ps, vv, ff)
	list, isList := x.([]any)
	if ok && (!isList || len(list) == 0) {
		ps.at(vv, ff, "expected a non-empty list")
		return nil
	}
	var choices []any
	for i, c := range list {
		norm, msg := spec.Parse(c)
		if msg != "" {
			ps.at(vv.Content[i], fmt.Sprintf("%s[%d]", ff, i), "%s", msg)
			continue
		}
		choices = append(choices, norm)
	}
	return choices
}

// checkSpaceRange checks a numeric range sp (the parameter's node v at
// field f, its keys' nodes in have) against its parameter spec: a numeric
// parameter (int ones sampled as int), low < high, integer bounds for
// int, a valid step, low > 0 for log_float, and bounds the parameter
// accepts.
func checkSpaceRange(ps *problems, v *yaml.Node, f string, spec ParamSpec, sp SpaceParam, have map[string]*yaml.Node) {
	if spec.Kind != KindFloat && spec.Kind != KindInt {
		ps.at(v, joinField(f, "type"), "parameter %q is %s: use type categorical", sp.Param, spec.Kind)
	}
	if have["low"] == nil || have["high"] == nil {
		ps.at(v, f, "a %s range needs low and high", sp.Type)
	} else if sp.Low >= sp.High {
		ps.at(have["high"], joinField(f, "high"), "must be > low (%v >= %v)", FormatValue(sp.Low), FormatValue(sp.High))
	}
	if spec.Kind == KindInt && sp.Type != "int" {
		ps.at(have["type"], joinField(f, "type"), "parameter %q takes integers: use type int (a %s sample would be truncated)", sp.Param, sp.Type)
	}
	bounds := []struct {
		name string
		v    float64
	}{{"low", sp.Low}, {"high", sp.High}}
	if sp.Type == "int" {
		for _, b := range bounds {
			if n := have[b.name]; n != nil && b.v != math.Trunc(b.v) {
				ps.at(n, joinField(f, b.name), "an int range needs integer bounds (got %v)", n.Value)
			}
		}
	}
	if n := have["step"]; n != nil {
		checkSpaceStep(ps, n, f, sp)
	}
	if sp.Type == "log_float" && sp.Low <= 0 {
		ps.at(have["low"], joinField(f, "low"), "must be > 0 for log_float (got %v)", FormatValue(sp.Low))
	}
	numeric := spec.Kind == KindFloat || spec.Kind == KindInt
	if numeric && spec.Check != nil && have["low"] != nil && have["high"] != nil {
		for _, b := range bounds {
			if msg := spec.Check(b.v); msg != "" {
				ps.at(have[b.name], joinField(f, b.name), "%s", msg)
			}
		}
	}
}

// checkSpaceStep checks the step (node n) of range sp at field f: none for
// log_float, a finite number > 0, an integer for int, at most high - low,
// and for int a divisor of high - low (the samplers draw low + k*step; a
// high off that grid is a value no trial could take). The first problem
// is reported.
func checkSpaceStep(ps *problems, n *yaml.Node, f string, sp SpaceParam) {
	switch {
	case sp.Type == "log_float":
		ps.at(n, joinField(f, "step"), "log_float takes no step")
	case !(sp.Step > 0) || math.IsInf(sp.Step, 0):
		ps.at(n, joinField(f, "step"), "must be a number > 0 (got %v)", n.Value)
	case sp.Type == "int" && sp.Step != math.Trunc(sp.Step):
		ps.at(n, joinField(f, "step"), "an int step must be an integer (got %v)", n.Value)
	case sp.Low < sp.High && sp.Step > sp.High-sp.Low:
		ps.at(n, joinField(f, "step"), "must be at most high - low = %v (got %v)", FormatValue(sp.High-sp.Low), n.Value)
	case sp.Type == "int" && sp.Low < sp.High && math.Mod(sp.High-sp.Low, sp.Step) != 0:
		ps.at(n, joinField(f, "step"), "high - low = %v must be a multiple of the step (got %v): high is not on the grid low + k*step", FormatValue(sp.High-sp.Low), n.Value)
	}
}

// TrialSpec is one configuration to evaluate, expanded from an experiment
// file.
type TrialSpec struct {
	Name     string
	Params   Params
	Baseline bool
	// Origin says where the trial came from: baseline, experiments[i] or grid.
	Origin string
	// Pos is where the trial is defined: file:line:col.
	Pos string
}

// Expand lists the trials of the file in a stable order: the baseline, the
// named experiments, then the grid's cartesian product (first axis slowest).
// Every non-baseline trial's params overlay the baseline's. Trials whose
// resulting params are identical to an earlier trial's are dropped and
// reported in the returned warnings.
func (ef *ExperimentFile) Expand() ([]TrialSpec, []string, error) {
	var out []TrialSpec
	base := Params{}
	if ef.Baseline != nil {
		base = ef.Baseline.Params
		out = append(out, TrialSpec{Name: ef.Baseline.Name, Params: base.Clone(), Baseline: true, Origin: "baseline", Pos: ef.Baseline.Pos})
	}
	for i, v := range ef.Variants {
		out = append(out, TrialSpec{Name: v.Name, Params: base.Overlay(v.Params), Origin: fmt.Sprintf("experiments[%d]", i), Pos: v.Pos})
	}
	if ef.gridSize() > MaxTrials {
		return nil, nil, Problems{{Pos: ef.gridPos, Field: "grid", Msg: fmt.Sprintf("the cartesian product has more than %d trials (the most a sweep may plan): split the grid or use a search space", MaxTrials)}}
	}
	out = append(out, ef.gridTrials(base)...)
	kept, warnings, ps := dedupTrials(ef.Path, out)
	if len(ps) > 0 {
		return nil, nil, ps
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Baseline && !kept[j].Baseline })
	var baseline Params
	if ef.Baseline != nil {
		baseline = ef.Baseline.Params
	}
	warnings = append(warnings, ignoredParams(ef.Path, kept, baseline, ef.Space)...)
	return kept, warnings, nil
}

// gridTrials is the grid's cartesian product (first axis slowest), each
// point's params overlaying base, named after its values ("k=60,w=…").
func (ef *ExperimentFile) gridTrials(base Params) []TrialSpec {
	if len(ef.Grid) == 0 {
		return nil
	}
	var out []TrialSpec
	idx := make([]int, len(ef.Grid))
	for {
		p := base.Clone()
		var name []string
		for a, axis := range ef.Grid {
			val := axis.Values[idx[a]]
			if w, ok := val.(Params); ok {
				for k, x := range w {
					p[k] = x
				}
				name = append(name, "w="+weightsName(w))
				continue
			}
			p[axis.Param] = val
			name = append(name, paramtext.Short(axis.Param)+"="+FormatValue(val))
		}
		out = append(out, TrialSpec{Name: strings.Join(name, ","), Params: p, Origin: "grid", Pos: ef.gridPos})
		a := len(idx) - 1
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < len(ef.Grid[a].Values) {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			return out
		}
	}
}

// dedupTrials keeps the first of the trials (of the file at path) with the
// same params, warning about each later one — but a grid's point at the
// baseline's values, which a grid around the baseline holds by design, is
// the baseline, silently — and reports a name used twice and a
// combination of params that cannot run.
func dedupTrials(path string, out []TrialSpec) ([]TrialSpec, []string, Problems) {
	var ps Problems
	var warnings []string
	names := map[string]string{}
	seen := map[string]string{}
	baseline := ""
	for _, t := range out {
		if t.Baseline {
			baseline = t.Params.String()
		}
	}
	kept := out[:0]
	for _, t := range out {
		if prev, dup := names[t.Name]; dup {
			ps = append(ps, Problem{Pos: t.Pos, Field: t.Origin + ".name", Msg: fmt.Sprintf("trial name %q already used by %s", t.Name, prev)})
			continue
		}
		names[t.Name] = t.Origin
		if msg := checkCombination(t.Params); msg != "" {
			ps = append(ps, Problem{Pos: t.Pos, Field: t.Origin, Msg: fmt.Sprintf("trial %q: %s", t.Name, msg)})
		}
		key := t.Params.String()
		if prev, dup := seen[key]; dup {
			if t.Origin != "grid" || key != baseline {
				warnings = append(warnings, fmt.Sprintf("%s: trial %q has the same parameters as %q: skipped", path, t.Name, prev))
			}
			continue
		}
		seen[key] = t.Name
		kept = append(kept, t)
	}
	return kept, warnings, ps
}

// MaxTrials caps the trials one grid may expand to: a typo such as three
// 100-value axes must not plan a million backend restarts (or exhaust
// memory while listing them).
const MaxTrials = 10000

// gridSize is the number of grid points, saturating at MaxTrials+1.
func (ef *ExperimentFile) gridSize() int {
	if len(ef.Grid) == 0 {
		return 0
	}
	n := 1
	for _, a := range ef.Grid {
		n *= len(a.Values)
		if n > MaxTrials {
			return MaxTrials + 1
		}
	}
	return n
}

// checkCombination validates constraints between parameters.
func checkCombination(p Params) string {
	size, hasSize := p[backend.ParamChunkSize].(float64)
	overlap, hasOverlap := p[backend.ParamChunkOverlap].(float64)
	if hasSize && hasOverlap && size > 0 && overlap >= size {
		return fmt.Sprintf("chunk.overlap (%v) must be smaller than chunk.size (%v)", FormatValue(overlap), FormatValue(size))
	}
	// Weights all 0 make every fused score 0: every document ties and the
	// ranking is the tie-break order. The fused retrievers are the trial's
	// retrievers, or (unset) the default bm25 and dense; a retriever without
	// a weight has weight 1.
	fused, _ := p[backend.ParamRetrievers].([]string)
	if len(fused) == 0 {
		fused = []string{"bm25", "dense"}
	}
	allZero := true
	for _, r := range fused {
		if w, set := p[WeightPrefix+r].(float64); !set || w != 0 {
			allZero = false
		}
	}
	if allZero {
		return fmt.Sprintf("every fused retriever's weight is 0 (%s): every fused score would be 0 and the ranking a tie; give one a weight > 0", strings.Join(fused, ", "))
	}
	return ""
}

// parseWeightsAxis reads a grid axis over whole weight vectors:
//
//	"fusion.weights": [{"bm25": 0.5, "dense": 0.5}, {"bm25": 0.4, "dense": 0.6}]
//
// Each value becomes a Params of fusion.weights.<retriever> keys.
func parseWeightsAxis(ps *problems, v *yaml.Node, field string) []any {
	var out []any
	for i, item := range v.Content {
		fi := fmt.Sprintf("%s[%d]", field, i)
		if item.Kind != yaml.MappingNode {
			ps.at(item, fi, "expected an object {retriever: weight}")
			continue
		}
		w := Params{}
		parseParams(ps, item, fi, backend.WeightsParam, w)
		out = append(out, w)
	}
	return out
}

// weightsName renders a weight vector for a trial name: "bm25:0.4/dense:0.6".
func weightsName(w Params) string {
	parts := make([]string, 0, len(w))
	for _, k := range w.Keys() {
		parts = append(parts, strings.TrimPrefix(k, WeightPrefix)+":"+FormatValue(w[k]))
	}
	return strings.Join(parts, "/")
}
