package runs

import (
	"maps"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
)

// unsetValue is how Varying tells a parameter a trial leaves unset, with
// no effective value recorded, from every value.
const unsetValue = "\x00unset"

// Value is the value parameter name takes in trial e: its own, else the
// effective one recorded in Defaults (the backend's default); false when
// neither is known.
func (e Entry) Value(name string) (any, bool) {
	if v, ok := e.Params[name]; ok {
		return v, true
	}
	v, ok := e.Defaults[name]
	return v, ok
}

// SetDefaults records in each trial's Defaults the value effective gives
// every parameter that another trial sets and it leaves unset (the
// backend kind's default, see backend.EffectiveParam), so that the
// leaderboard, its charts and its labels know where such a trial stands.
// A parameter effective knows no value of is left out.
func (lb *Leaderboard) SetDefaults(effective func(params map[string]any, name string) (any, bool)) {
	names := map[string]bool{}
	for _, e := range lb.Trials {
		for k := range e.Params {
			names[k] = true
		}
	}
	for i := range lb.Trials {
		e := &lb.Trials[i]
		e.Defaults = nil
		for _, k := range slices.Sorted(maps.Keys(names)) {
			if _, set := e.Params[k]; set {
				continue
			}
			if v, ok := effective(e.Params, k); ok {
				if e.Defaults == nil {
					e.Defaults = map[string]any{}
				}
				e.Defaults[k] = v
			}
		}
	}
}

// Varying lists, sorted, the parameters whose value differs between the
// trials (a trial's effective value counting for one it leaves unset,
// Value): the ones the run tuned.
func (lb Leaderboard) Varying() []string {
	values := map[string]map[string]bool{}
	for _, e := range lb.Trials {
		for k := range e.Params {
			values[k] = map[string]bool{}
		}
	}
	for _, e := range lb.Trials {
		for k := range values {
			text := unsetValue
			if v, ok := e.Value(k); ok {
				text = paramtext.Exact(v)
			}
			values[k][text] = true
		}
	}
	var out []string
	for k, vs := range values {
		if len(vs) > 1 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Labels maps each trial's name to the label the leaderboard's tables
// show it under, which Pick accepts as well as the name:
//
//   - a name generated from a grid point ("retrievers=bm25+dense,k=20,
//     w=bm25:0.3/dense:0.7") keeps only the parameters that vary across
//     the run ("k=20,w=bm25:0.3/dense:0.7");
//   - a sampled trial ("tpe-021") is followed by its values of the
//     varying parameters, rounded for reading, the fusion settings first
//     ("tpe-021 method=rrf,k=37,w=bm25:0.974/dense:0.0123,depth=40");
//   - any other name is its own label.
//
// A label that would equal another trial's name or label is the name.
func (lb Leaderboard) Labels() map[string]string {
	varying := map[string]bool{}
	for _, k := range lb.Varying() {
		varying[k] = true
	}
	labels := make(map[string]string, len(lb.Trials))
	uses := map[string]int{}
	for _, e := range lb.Trials {
		l := e.label(varying)
		labels[e.Name] = l
		uses[l]++
		if l != e.Name {
			uses[e.Name]++
		}
	}
	for name, l := range labels {
		if l != name && uses[l] > 1 {
			labels[name] = name
		}
	}
	return labels
}

// label is e's label given the run's varying parameters (see Labels).
func (e Entry) label(varying map[string]bool) string {
	if e.Sampler != "" {
		if v := sampledValues(e.Params, varying); v != "" {
			return e.Name + " " + v
		}
		return e.Name
	}
	segs, ok := gridSegments(e.Name, e.Params)
	if !ok {
		return e.Name
	}
	var kept []string
	for _, s := range segs {
		if slices.ContainsFunc(s.params, func(p string) bool { return varying[p] }) {
			kept = append(kept, s.text)
		}
	}
	if len(kept) == 0 || len(kept) == len(segs) {
		return e.Name
	}
	return strings.Join(kept, ",")
}

// sampledValues writes the varying parameters of a sampled trial as a
// generated name would, rounded for reading: the fusion method, k, the
// weights ("w=bm25:0.974/dense:0.0123", or "w.bm25=0.974" when one
// varies), the other fusion settings, then the rest by name.
func sampledValues(params map[string]any, varying map[string]bool) string {
	var names, weights []string
	for k := range params {
		switch {
		case !varying[k]:
		case strings.HasPrefix(k, paramtext.WeightPrefix):
			weights = append(weights, k)
		default:
			names = append(names, k)
		}
	}
	rank := func(k string) int {
		switch {
		case k == "fusion.method":
			return 0
		case k == "fusion.k":
			return 1
		case k == paramtext.WeightPrefix:
			return 2
		case strings.HasPrefix(k, "fusion."):
			return 3
		}
		return 4
	}
	if len(weights) > 0 {
		names = append(names, paramtext.WeightPrefix) // the weights' place
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	slices.Sort(weights)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		switch {
		case k != paramtext.WeightPrefix:
			parts = append(parts, paramtext.Short(k)+"="+paramtext.Rounded(params[k]))
		case len(weights) == 1:
			parts = append(parts, paramtext.Short(weights[0])+"="+paramtext.Rounded(params[weights[0]]))
		default:
			ws := make([]string, len(weights))
			for i, w := range weights {
				ws[i] = strings.TrimPrefix(w, paramtext.WeightPrefix) + ":" + paramtext.Rounded(params[w])
			}
			parts = append(parts, "w="+strings.Join(ws, "/"))
		}
	}
	return strings.Join(parts, ",")
}

// segment is one "key=value" part of a generated trial name and the
// parameters it shows.
type segment struct {
	text   string
	params []string
}

// gridSegments splits a name generated from a grid point into its parts
// ("k=20", "w=bm25:0.3/dense:0.7"), each checked against params: a part
// names a parameter by its short name (paramtext.Short) and shows its
// exact value, or "w=" shows a weight per retriever. false when name is
// not such a name (a name the experiment file chose).
func gridSegments(name string, params map[string]any) ([]segment, bool) {
	short := make(map[string]string, len(params))
	for k := range params {
		short[paramtext.Short(k)] = k
	}
	var segs []segment
	for part := range strings.SplitSeq(name, ",") {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, false
		}
		if key == "w" {
			var ps []string
			for w := range strings.SplitSeq(val, "/") {
				r, x, ok := strings.Cut(w, ":")
				p := paramtext.WeightPrefix + r
				if v, set := params[p]; !ok || !set || paramtext.Exact(v) != x {
					return nil, false
				}
				ps = append(ps, p)
			}
			segs = append(segs, segment{part, ps})
			continue
		}
		p, known := short[key]
		if !known || paramtext.Exact(params[p]) != val {
			return nil, false
		}
		segs = append(segs, segment{part, []string{p}})
	}
	return segs, true
}

// Measure names the measure of the primary score in a few words, as
// listings head a column of it: "default composite", "NDCG@10" (a
// primary of one metric, the default's or a configured one), another
// composite's formula; "(dev split)"
// follows when the run tuned on a dev split and scored its held-out split
// apart, whose primary scores are then the dev split's.
func (lb Leaderboard) Measure() string {
	m := lb.Primary
	if i := strings.Index(m, " ("); i > 0 {
		m = m[:i]
	}
	if head, rest, ok := strings.Cut(m, ": "); ok {
		m = head // "default composite: mean of ..."
		if !strings.ContainsAny(rest, " ,") {
			m = rest // "default for binary judgments: NDCG@10"
		}
	}
	if one, ok := strings.CutPrefix(m, "1*"); ok && !strings.ContainsAny(one, "+*") {
		m = one
	}
	if m == "" {
		m = "primary"
	}
	if lb.HeldOut != nil {
		m += " (dev split)"
	}
	return m
}
