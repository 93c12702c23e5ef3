package treceval

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// Options are trec_eval's evaluation switches.
type Options struct {
	// RelevanceLevel is the lowest grade counted relevant (trec_eval -l).
	RelevanceLevel int
	// Complete evaluates every qrels query, an absent one as an empty
	// ranking, and averages over all of them (trec_eval -c).
	Complete bool
	// Workers bounds the goroutines scoring queries; 0 means GOMAXPROCS.
	Workers int
}

// DefaultRelevanceLevel is trec_eval's default -l.
const DefaultRelevanceLevel = 1

// DefaultOptions returns trec_eval's defaults.
func DefaultOptions() Options { return Options{RelevanceLevel: DefaultRelevanceLevel} }

// Measure sets trec_eval names with -m.
var (
	// Official is trec_eval's default measure set.
	Official = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
		"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"}
	// AllTrec is trec_eval's all_trec set: every measure of trec_eval.
	AllTrec = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
		"Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
		"gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
		"ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall",
		"set_map", "set_F", "num_nonrel_judged_ret", "rbp", "unj"}
)

// Selection is a parsed list of -m requests: measure name -> parameters.
type Selection struct {
	params map[string]string
	// Missing lists requested trec_eval measures this package does not
	// implement (from "all_trec" or by name), for a warning.
	Missing []string
}

// Select parses -m arguments such as "official", "all_trec", "P.5,10" or
// "ndcg_cut.10". An empty list selects "official". A later request for the
// same measure replaces an earlier one.
func Select(requests []string) (Selection, error) {
	if len(requests) == 0 {
		requests = []string{"official"}
	}
	s := Selection{params: map[string]string{}}
	known := map[string]bool{}
	for _, m := range registry {
		known[m.name] = true
	}
	trecKnown := map[string]bool{}
	for _, n := range AllTrec {
		trecKnown[n] = true
	}
	addSet := func(names []string) {
		for _, n := range names {
			if known[n] {
				if _, ok := s.params[n]; !ok {
					s.params[n] = ""
				}
			} else if !slices.Contains(s.Missing, n) {
				s.Missing = append(s.Missing, n)
			}
		}
	}
	for _, r := range requests {
		switch r {
		case "official":
			addSet(Official)
			continue
		case "all_trec":
			addSet(AllTrec)
			continue
		}
		name, params, _ := strings.Cut(r, ".")
		switch {
		case known[name]:
			s.params[name] = params
		case trecKnown[name]:
			if !slices.Contains(s.Missing, name) {
				s.Missing = append(s.Missing, name)
			}
		default:
			return Selection{}, fmt.Errorf("measure %q: unknown (known: %s, official, all_trec)", r, strings.Join(Names(), ", "))
		}
	}
	return s, nil
}

// Result holds the evaluated values, ready to print.
type Result struct {
	RunID   string
	Columns []Column
	Queries []QueryValues // in ascending query id order; see Value
	All     []Value       // one per column; see Column.InAll
	// Skipped lists the run's queries that have no judgments, sorted; like
	// trec_eval, they are not evaluated (with or without Complete).
	Skipped []string

	strs []int // column -> index in QueryValues' strings (String columns)
	nstr int   // String columns
}

// Column describes one printed measure value, such as "P_10".
type Column struct {
	Name       string
	Kind       Kind
	PerQuery   bool // printed on per-query lines
	InAll      bool // printed on the "all" line
	aggregator agg
	calc       func(*query) value
}

// QueryValues are one query's values, one per column (unused where
// Column.PerQuery is false), as Result.Value gives them: numbers, and the
// strings of String columns apart (a query's values take 8 bytes a
// column).
type QueryValues struct {
	ID   string
	nums []float64 // per column
	strs []string  // per String column
}

// Value returns column c's value of query q (an index in r.Queries).
func (r *Result) Value(q, c int) Value {
	v := Value{Num: r.Queries[q].nums[c]}
	if i := r.strs[c]; i >= 0 {
		v.Str = r.Queries[q].strs[i]
	}
	return v
}

// Value is one measure value: Num for Float and Int columns, Str for String.
type Value struct {
	Num float64
	Str string
}

// Evaluate computes the selected measures for run against qrels.
func Evaluate(qrels trec.Judgments, run trec.Run, sel Selection, o Options) (*Result, error) {
	st, err := NewStream(qrels, sel, o)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(run.Queries))
	for id := range run.Queries {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := st.Add(id, run.Queries[id]); err != nil {
			st.Close()
			return nil, err
		}
	}
	return st.Result(run.Tag)
}

// newResult lays out the columns of the selected measures.
func newResult(sel Selection) (*Result, error) {
	res := &Result{}
	for _, m := range registry {
		params, ok := sel.params[m.name]
		if !ok {
			continue
		}
		cols, err := m.expand(params)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			res.Columns = append(res.Columns, Column{Name: c.name, Kind: c.kind,
				PerQuery:   c.agg != aggNumQ && c.agg != aggRunID && c.agg != aggGeo,
				InAll:      c.agg != aggNone,
				aggregator: c.agg, calc: c.calc})
		}
	}
	for _, col := range res.Columns {
		i := -1
		if col.Kind == String {
			i, res.nstr = res.nstr, res.nstr+1
		}
		res.strs = append(res.strs, i)
	}
	return res, nil
}

// values computes every column for the prepared query q.
func (r *Result) values(q *query) QueryValues {
	vals := QueryValues{ID: q.id, nums: make([]float64, len(r.Columns))}
	if r.nstr > 0 {
		vals.strs = make([]string, r.nstr)
	}
	for c, col := range r.Columns {
		if col.calc == nil {
			continue
		}
		v := col.calc(q)
		vals.nums[c] = v.num
		if i := r.strs[c]; i >= 0 {
			vals.strs[i] = v.str
		}
	}
	return vals
}

func (r *Result) aggregate() {
	r.All = make([]Value, len(r.Columns))
	n := float64(len(r.Queries))
	for c, col := range r.Columns {
		var v Value
		switch col.aggregator {
		case aggRunID:
			v.Str = r.RunID
		case aggNumQ:
			v.Num = n
		case aggSum, aggMean:
			for _, q := range r.Queries {
				v.Num += q.nums[c]
			}
			if col.aggregator == aggMean && n > 0 {
				v.Num /= n
			}
		case aggGeo:
			for _, q := range r.Queries {
				v.Num += math.Log(max(q.nums[c], minGeoMean))
			}
			if n > 0 {
				v.Num = math.Exp(v.Num / n)
			}
		}
		r.All[c] = v
	}
}
