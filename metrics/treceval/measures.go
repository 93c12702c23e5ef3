package treceval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// Kind says how a value prints: trec_eval prints counts as integers, most
// measures with four decimals and a few as strings.
type Kind int

// Kinds of values.
const (
	Float Kind = iota
	Int
	String
)

// agg says how per-query values combine into the "all" line.
type agg int

const (
	aggMean  agg = iota // arithmetic mean over queries
	aggSum              // sum over queries (counts)
	aggGeo              // geometric mean with trec_eval's floor of 1e-5
	aggNone             // printed per query only
	aggNumQ             // the number of queries, "all" only
	aggRunID            // the run tag, "all" only
)

// minGeoMean is trec_eval's MIN_GEO_MEAN: values below it count as it in
// geometric means.
const minGeoMean = 0.00001

// column is one printed measure value, such as "P_10".
type column struct {
	name string
	kind Kind
	agg  agg
	calc func(q *query) value
}

// value is one computed measure value.
type value struct {
	num float64
	str string
}

// measure is a trec_eval measure: a name and how its parameters expand into
// printed columns.
type measure struct {
	name   string
	expand func(params string) ([]column, error)
}

// Default cutoffs of trec_eval 10.0.
var (
	defaultCutoffs = "5,10,15,20,30,100,200,500,1000"
	defaultRecall  = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
	defaultRMult   = "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"
)

// registry lists the implemented measures in trec_eval's print order.
var registry = []measure{
	single("runid", String, aggRunID, nil),
	single("num_q", Int, aggNumQ, nil),
	single("num_ret", Int, aggSum, func(q *query) float64 { return float64(q.numRet()) }),
	single("num_rel", Int, aggSum, func(q *query) float64 { return float64(q.numRel) }),
	single("num_rel_ret", Int, aggSum, func(q *query) float64 { return float64(q.relAt(q.numRet())) }),
	single("map", Float, aggMean, averagePrecision),
	single("gm_map", Float, aggGeo, averagePrecision),
	single("Rprec", Float, aggMean, rPrecision),
	single("bpref", Float, aggMean, bpref),
	single("recip_rank", Float, aggMean, reciprocalRank),
	floatCutoffs("iprec_at_recall", defaultRecall, func(c float64) func(*query) float64 {
		return func(q *query) float64 { return interpolatedPrecision(q, c) }
	}),
	intCutoffs("P", func(k int) func(*query) float64 {
		return func(q *query) float64 { return float64(q.relAt(k)) / float64(k) }
	}),
	{name: "relstring", expand: relString},
	intCutoffs("recall", func(k int) func(*query) float64 {
		return func(q *query) float64 { return ratio(q.relAt(k), q.numRel) }
	}),
	single("gm_bpref", Float, aggGeo, bpref),
	floatCutoffs("Rprec_mult", defaultRMult, func(m float64) func(*query) float64 {
		return func(q *query) float64 {
			k := int(m*float64(q.numRel) + 0.9) // trec_eval's rounding
			if k <= 0 {
				return 0
			}
			return float64(q.relAt(k)) / float64(k)
		}
	}),
	{name: "utility", expand: utility},
	{name: "11pt_avg", expand: elevenPoint},
	single("binG", Float, aggMean, binaryG),
	{name: "ndcg", expand: ndcg},
	intCutoffs("ndcg_cut", func(k int) func(*query) float64 {
		return func(q *query) float64 { return ndcgCut(q, k) }
	}),
	intCutoffs("map_cut", func(k int) func(*query) float64 {
		return func(q *query) float64 { return averagePrecisionCut(q, k) }
	}),
	intCutoffs("relative_P", func(k int) func(*query) float64 {
		return func(q *query) float64 { return ratio(q.relAt(k), min(k, q.numRel)) }
	}),
	intCutoffsDefault("success", "1,5,10", func(k int) func(*query) float64 {
		return func(q *query) float64 { return b2f(q.relAt(k) > 0) }
	}),
	single("set_P", Float, aggMean, func(q *query) float64 { return ratio(q.relAt(q.numRet()), q.numRet()) }),
	single("set_relative_P", Float, aggMean, func(q *query) float64 {
		return ratio(q.relAt(q.numRet()), min(q.numRet(), q.numRel))
	}),
	single("set_recall", Float, aggMean, func(q *query) float64 { return ratio(q.relAt(q.numRet()), q.numRel) }),
	single("set_map", Float, aggMean, func(q *query) float64 {
		rr := q.relAt(q.numRet())
		return ratio(rr, q.numRet()) * ratio(rr, q.numRel)
	}),
	single("set_F", Float, aggMean, func(q *query) float64 {
		rr := q.relAt(q.numRet())
		p, r := ratio(rr, q.numRet()), ratio(rr, q.numRel)
		if p+r == 0 {
			return 0
		}
		return 2 * p * r / (p + r)
	}),
	single("num_nonrel_judged_ret", Int, aggSum, func(q *query) float64 { return float64(q.nonrelJudgedRet()) }),
	intCutoffsDefault("unj", "5,10,20", func(k int) func(*query) float64 {
		return func(q *query) float64 {
			n := 0
			for _, g := range q.grades[:min(k, len(q.grades))] {
				if g < 0 { // absent from the qrels or pooled but unjudged
					n++
				}
			}
			return float64(n) / float64(k)
		}
	}),
}

// Names returns the implemented measures in trec_eval's print order.
func Names() []string {
	out := make([]string, len(registry))
	for i, m := range registry {
		out[i] = m.name
	}
	return out
}

func single(name string, kind Kind, a agg, f func(*query) float64) measure {
	return measure{name: name, expand: func(params string) ([]column, error) {
		if params != "" {
			return nil, fmt.Errorf("measure %q takes no parameters (got %q)", name, params)
		}
		c := column{name: name, kind: kind, agg: a}
		if f != nil {
			c.calc = func(q *query) value { return value{num: f(q)} }
		}
		return []column{c}, nil
	}}
}

func intCutoffs(name string, f func(k int) func(*query) float64) measure {
	return intCutoffsDefault(name, defaultCutoffs, f)
}

// intCutoffsDefault expands "name.k1,k2" into columns name_k1, name_k2 in
// ascending order. Like trec_eval, it reads cutoffs as numbers and
// truncates them to integers ("23.4" is 23).
func intCutoffsDefault(name, def string, f func(k int) func(*query) float64) measure {
	return cutoffs(name, def, func(v float64) (string, func(*query) float64, error) {
		k := int(v)
		if k <= 0 {
			return "", nil, fmt.Errorf("measure %q: cutoff must be a positive integer (got %v)", name, v)
		}
		return name + "_" + strconv.Itoa(k), f(k), nil
	})
}

// floatCutoffs expands "name.x1,x2" into columns name_x1 (two decimals).
func floatCutoffs(name, def string, f func(x float64) func(*query) float64) measure {
	return cutoffs(name, def, func(v float64) (string, func(*query) float64, error) {
		return fmt.Sprintf("%s_%3.2f", name, v), f(v), nil
	})
}

// cutoffs builds a measure with one column per numeric parameter; column
// names the column and its computation for one parameter value.
func cutoffs(name, def string, column1 func(float64) (string, func(*query) float64, error)) measure {
	return measure{name: name, expand: func(params string) ([]column, error) {
		if params == "" {
			params = def
		}
		vals, err := parseFloats(name, params)
		if err != nil {
			return nil, err
		}
		cols := make([]column, 0, len(vals))
		for _, v := range vals {
			colName, calc, err := column1(v)
			if err != nil {
				return nil, err
			}
			cols = append(cols, column{name: colName, kind: Float, agg: aggMean,
				calc: func(q *query) value { return value{num: calc(q)} }})
		}
		return cols, nil
	}}
}

// parseFloats reads a comma-separated list of numbers, sorted ascending
// with duplicates removed, as trec_eval does with cutoff parameters.
func parseFloats(name, params string) ([]float64, error) {
	parts := strings.Split(params, ",")
	vals := make([]float64, 0, len(parts))
	for _, p := range parts {
		v, ok := plainnum.Float(p)
		if !ok {
			return nil, fmt.Errorf("measure %q: parameters must be comma-separated numbers (got %q)", name, params)
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	return slices.Compact(vals), nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
