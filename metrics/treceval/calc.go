package treceval

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// averagePrecision is trec_eval's map for one query: the sum of the
// precision at each relevant retrieved document, over the number relevant.
func averagePrecision(q *query) float64 { return averagePrecisionCut(q, q.numRet()) }

// averagePrecisionCut is map_cut: average precision of the first k ranks.
func averagePrecisionCut(q *query, k int) float64 {
	if q.numRel == 0 {
		return 0
	}
	sum := 0.0
	rel := 0
	for i, g := range q.grades[:min(k, len(q.grades))] {
		if q.isRel(g) {
			rel++
			sum += float64(rel) / float64(i+1)
		}
	}
	return sum / float64(q.numRel)
}

// rPrecision is precision at rank R, R the number of relevant documents.
func rPrecision(q *query) float64 { return ratio(q.relAt(q.numRel), q.numRel) }

// reciprocalRank is 1/rank of the first relevant document, 0 without one.
func reciprocalRank(q *query) float64 {
	for i, g := range q.grades {
		if q.isRel(g) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// bpref counts, for each relevant retrieved document, the judged
// non-relevant documents ranked above it (Buckley and Voorhees 2004, as
// trec_eval computes it).
func bpref(q *query) float64 {
	if q.numRel == 0 {
		return 0
	}
	denom := float64(min(q.numNonre, q.numRel))
	nonrel := 0
	sum := 0.0
	for _, g := range q.grades {
		switch {
		case g < 0:
		case q.isRel(g):
			if nonrel > 0 {
				sum += 1 - float64(min(nonrel, q.numRel))/denom
			} else {
				sum++
			}
		default:
			nonrel++
		}
	}
	return sum / float64(q.numRel)
}

// interpolatedPrecision is the highest precision at any rank at or after
// the document that reaches recall c. Like trec_eval, it turns c into a
// number of relevant documents as int(c*R + 0.9), R the number relevant, and
// scores 0 when the run never retrieves that many.
func interpolatedPrecision(q *query, c float64) float64 {
	if q.numRel == 0 {
		return 0
	}
	cut := int(c*float64(q.numRel) + 0.5)
	if cut > q.relAt(q.numRet()) {
		return 0
	}
	best := 0.0
	rel := 0
	for i, g := range q.grades {
		if !q.isRel(g) {
			continue
		}
		rel++
		if rel >= cut {
			best = max(best, float64(rel)/float64(i+1))
		}
	}
	return best
}

// elevenPoint is 11pt_avg: the mean interpolated precision at the recall
// levels of its parameters (default 0.0, 0.1, ..., 1.0).
func elevenPoint(params string) ([]column, error) {
	p := params
	if p == "" {
		p = defaultRecall
	}
	levels, err := parseFloats("11pt_avg", p)
	if err != nil {
		return nil, err
	}
	return []column{{name: suffixed("11pt_avg", params), kind: Float, agg: aggMean, calc: func(q *query) value {
		sum := 0.0
		for _, c := range levels {
			sum += interpolatedPrecision(q, c)
		}
		return value{num: sum / float64(len(levels))}
	}}}, nil
}

// binaryG is trec_eval's binG: over the relevant documents, the mean of
// 1/log2(2 + non-relevant documents ranked above), summed over those
// retrieved and divided by the number relevant.
func binaryG(q *query) float64 {
	if q.numRel == 0 {
		return 0
	}
	sum, rel := 0.0, 0
	for i, g := range q.grades {
		if q.isRel(g) {
			rel++
			sum += 1 / math.Log2(float64(2+i+1-rel))
		}
	}
	return sum / float64(q.numRel)
}

// utility is a*relret + b*nonrelret + c*relnonret + d*nonrelnonret with
// parameters "a,b,c,d" (default 1,-1,0,0).
func utility(params string) ([]column, error) {
	p := params
	if p == "" {
		p = "1,-1,0,0"
	}
	parts := strings.Split(p, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("measure %q: want four comma-separated coefficients (got %q)", "utility", params)
	}
	var co [4]float64
	for i, s := range parts {
		v, ok := plainnum.Float(s)
		if !ok {
			return nil, fmt.Errorf("measure %q: coefficient must be a number (got %q)", "utility", s)
		}
		co[i] = v
	}
	return []column{{name: suffixed("utility", params), kind: Float, agg: aggMean, calc: func(q *query) value {
		rr := q.relAt(q.numRet())
		nr := q.numRet() - rr
		rn := q.numRel - rr
		nn := q.numNonre - q.nonrelJudgedRet()
		return value{num: co[0]*float64(rr) + co[1]*float64(nr) + co[2]*float64(rn) + co[3]*float64(nn)}
	}}}, nil
}

func (q *query) nonrelJudgedRet() int {
	n := 0
	for _, g := range q.grades {
		if g >= 0 && g < q.level {
			n++
		}
	}
	return n
}

// ndcg is trec_eval's ndcg over the whole ranking. Parameters "g1=v1,..."
// map grades to gains; other grades gain their own value.
func ndcg(params string) ([]column, error) {
	gains := map[int]float64{}
	if params != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, ok := strings.Cut(kv, "=")
			gk, ok1 := plainnum.Int(k)
			gv, ok2 := plainnum.Float(v)
			if !ok || !ok1 || !ok2 {
				return nil, fmt.Errorf("measure %q: want grade=gain pairs (got %q)", "ndcg", params)
			}
			gains[gk] = gv
		}
	}
	gain := func(g int) float64 {
		if g < 0 {
			return 0
		}
		if v, ok := gains[g]; ok {
			return v
		}
		return float64(g)
	}
	return []column{{name: suffixed("ndcg", params), kind: Float, agg: aggMean, calc: func(q *query) value {
		return value{num: dcgRatio(q, len(q.grades), len(q.judged), gain)}
	}}}, nil
}

// ndcgCut is ndcg_cut.k: ndcg of the first k ranks, ideal from the k best
// judged documents; gain is the grade.
func ndcgCut(q *query, k int) float64 {
	return dcgRatio(q, k, k, func(g int) float64 {
		if g < 0 {
			return 0
		}
		return float64(g)
	})
}

func dcgRatio(q *query, k, idealK int, gain func(int) float64) float64 {
	dcg := 0.0
	for i, g := range q.grades[:min(k, len(q.grades))] {
		if v := gain(g); v != 0 {
			dcg += v / math.Log2(float64(i+2))
		}
	}
	ideal := make([]float64, 0, len(q.judged))
	for _, g := range q.judged {
		if v := gain(g); v > 0 {
			ideal = append(ideal, v)
		}
	}
	slices.SortFunc(ideal, func(a, b float64) int { return cmpDesc(a, b) })
	idcg := 0.0
	for i, v := range ideal[:min(idealK, len(ideal))] {
		idcg += v / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// relString is relstring: the grades of the first k documents (default 10)
// as characters: the digit, '*' above 9, '-' for a document absent from the
// qrels and '.' for a pooled but unjudged one.
func relString(params string) ([]column, error) {
	k := 10
	if params != "" {
		v, ok := plainnum.Int(params)
		if !ok || v <= 0 {
			return nil, fmt.Errorf("measure %q: want a positive length (got %q)", "relstring", params)
		}
		k = v
	}
	return []column{{name: suffixed("relstring", params), kind: String, agg: aggNone, calc: func(q *query) value {
		var b strings.Builder
		b.WriteByte('\'')
		for _, g := range q.grades[:min(k, len(q.grades))] {
			switch {
			case g == gradeNonPool:
				b.WriteByte('-')
			case g == gradeUnjudged:
				b.WriteByte('.')
			case g > 9:
				b.WriteByte('*')
			default:
				b.WriteByte(byte('0' + g))
			}
		}
		b.WriteByte('\'')
		return value{str: b.String()}
	}}}, nil
}

func suffixed(name, params string) string {
	if params == "" {
		return name
	}
	return name + "_" + params
}
