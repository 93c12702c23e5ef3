package metrics

import (
	"math"
	"slices"
)

// prepared is one query made ready for scoring: the grades of the first
// unique documents of the ranking and the totals of the judgments. One
// prepared serves every measure of a scorecard, so a query is walked once.
type prepared struct {
	grades []int  // grade per rank of the deduplicated ranking (unjudged 0)
	judged []bool // whether the document at each rank is judged
	q      *Query // the judgments and their totals
	own    Query  // q's storage when the caller gave no Query

	seen     map[string]struct{} // dedup set for deep rankings
	keptIDs  []string            // dedup list for shallow ones
	keptHash []uint64            // hashes of keptIDs
}

// sortDesc sorts small grades in descending order by counting, falling back
// to a comparison sort when a grade is 16 or more.
func sortDesc(g []int) {
	var counts [16]int
	for _, x := range g {
		if x >= len(counts) {
			slices.SortFunc(g, func(a, b int) int { return b - a })
			return
		}
		counts[x]++
	}
	i := 0
	for x := len(counts) - 1; x >= 0; x-- {
		for range counts[x] {
			g[i] = x
			i++
		}
	}
}

// linearDedup is the depth up to which duplicates are found by scanning the
// kept ids instead of hashing.
const linearDedup = 64

// prepare walks ranking down to depth unique documents (all if depth < 0).
func (p *prepared) prepare(ranking []string, q *Query, depth int) {
	p.q = q
	j := q.Judgments
	p.grades = p.grades[:0]
	p.judged = p.judged[:0]
	if depth < 0 || depth > len(ranking) {
		depth = len(ranking)
	}
	useMap := depth > linearDedup
	if useMap {
		if p.seen == nil {
			p.seen = make(map[string]struct{}, depth)
		}
		clear(p.seen)
	}
	p.keptIDs = p.keptIDs[:0]
	p.keptHash = p.keptHash[:0]
	for _, id := range ranking {
		if len(p.grades) == depth {
			break
		}
		if useMap {
			if _, dup := p.seen[id]; dup {
				continue
			}
			p.seen[id] = struct{}{}
		} else if p.isDup(id) {
			continue
		}
		g, ok := j[id]
		p.grades = append(p.grades, max(g, 0))
		p.judged = append(p.judged, ok)
	}
}

// isDup reports whether id was kept already, remembering it if not. It
// compares hashes first, so a short ranking needs no map.
func (p *prepared) isDup(id string) bool {
	h := hashID(id)
	for i, k := range p.keptHash {
		if k == h && p.keptIDs[i] == id {
			return true
		}
	}
	p.keptHash = append(p.keptHash, h)
	p.keptIDs = append(p.keptIDs, id)
	return false
}

// hashID is FNV-1a: for the short ids of a ranking it is cheaper than the
// runtime's hash, and collisions only cost a string comparison.
func hashID(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// top returns the grades of the first k documents (fewer if the ranking is
// shorter); k <= 0 means all.
func (p *prepared) top(k int) ([]int, []bool) {
	if k <= 0 || k > len(p.grades) {
		return p.grades, p.judged
	}
	return p.grades[:k], p.judged[:k]
}

// denom is the divisor of precision-type measures: k, or the ranking's
// length when there is no cutoff.
func (p *prepared) denom(k int) float64 {
	if k > 0 {
		return float64(k)
	}
	return float64(len(p.grades))
}

// score is measure m of the prepared query.
func (p *prepared) score(m Metric) float64 {
	o := p.q.Options
	g, judged := p.top(m.K)
	switch m.Kind {
	case NDCG, NDCGExp:
		return p.ndcg(g, m.K, m.Kind == NDCGExp)
	case ERR:
		return errScore(g, o.MaxGrade)
	case Precision:
		return frac(countAtLeast(g, o.Threshold), p.denom(m.K))
	case Recall:
		return frac(countAtLeast(g, o.Threshold), float64(p.q.numRel))
	case RecallStrong:
		return frac(countAtLeast(g, o.StrongGrade()), float64(p.q.numStrong))
	case RecallExact:
		return frac(countAtLeast(g, o.ExactGrade()), float64(p.q.numExact))
	case F1:
		rel := countAtLeast(g, o.Threshold)
		return f1(frac(rel, p.denom(m.K)), frac(rel, float64(p.q.numRel)))
	case MRR:
		return reciprocalRank(g, o.Threshold)
	case MRRStrong:
		return reciprocalRank(g, o.StrongGrade())
	case MRRExact:
		return reciprocalRank(g, o.ExactGrade())
	case AP:
		return averagePrecision(g, o.Threshold, p.q.numRel)
	case RPrecision:
		return p.rPrecision(o.Threshold)
	case Success:
		return success(g, o.Threshold)
	case StrongSuccess:
		return success(g, o.StrongGrade())
	case ExactSuccess:
		return success(g, o.ExactGrade())
	case Judged:
		return frac(countTrue(judged), p.denom(m.K))
	case ExactPrecision:
		return frac(countAtLeast(g, o.ExactGrade()), p.denom(m.K))
	case StrongPrecision:
		return frac(countAtLeast(g, o.StrongGrade()), p.denom(m.K))
	case UsefulPrecision:
		return frac(countAtLeast(g, 1), p.denom(m.K))
	case AvgGrade:
		v := frac(sum(g), p.denom(m.K))
		if m.Divisor > 0 {
			v /= m.Divisor
		}
		return v
	case GainRecall:
		return frac(sum(g), float64(p.q.sumGain))
	}
	return 0
}

// rPrecision is the precision at R, the query's number of relevant
// documents (grade >= threshold counts as relevant); 0 without any.
func (p *prepared) rPrecision(threshold int) float64 {
	if p.q.numRel == 0 {
		return 0
	}
	top, _ := p.top(p.q.numRel)
	return frac(countAtLeast(top, threshold), float64(p.q.numRel))
}

// f1 is the harmonic mean of precision and recall, 0 when both are.
func f1(prec, rec float64) float64 {
	if prec+rec == 0 {
		return 0
	}
	return 2 * prec * rec / (prec + rec)
}

// averagePrecision is AP over the grades g: the mean, over the query's
// numRel relevant documents, of the precision at the rank of each one
// retrieved (grade >= threshold); 0 without relevant documents.
func averagePrecision(g []int, threshold, numRel int) float64 {
	if numRel == 0 {
		return 0
	}
	sum, rel := 0.0, 0
	for i, x := range g {
		if x >= threshold {
			rel++
			sum += float64(rel) / float64(i+1)
		}
	}
	return sum / float64(numRel)
}

// countTrue counts the true values of bs.
func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// ndcg computes NDCG with linear (grade) or exponential (2^g-1) gain; the
// ideal ranking is all judged documents by grade, cut at k too.
func (p *prepared) ndcg(g []int, k int, exp bool) float64 {
	gain := func(x int) float64 {
		if exp {
			return math.Exp2(float64(x)) - 1
		}
		return float64(x)
	}
	dcg := 0.0
	for i, x := range g {
		if x > 0 {
			dcg += gain(x) * discount(i)
		}
	}
	if dcg == 0 {
		return 0
	}
	ideal := p.q.ideal
	if k > 0 && k < len(ideal) {
		ideal = ideal[:k]
	}
	idcg := 0.0
	for i, x := range ideal {
		if x <= 0 {
			break
		}
		idcg += gain(x) * discount(i)
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// discounts caches 1/log2(i+2) for the first ranks.
var discounts = func() []float64 {
	d := make([]float64, 1024)
	for i := range d {
		d[i] = 1 / math.Log2(float64(i+2))
	}
	return d
}()

// discount is 1/log2(rank+1) for the 0-based position i.
func discount(i int) float64 {
	if i < len(discounts) {
		return discounts[i]
	}
	return 1 / math.Log2(float64(i+2))
}

// errScore is expected reciprocal rank with stop probability
// (2^g-1)/2^gmax.
func errScore(g []int, gmax int) float64 {
	if gmax <= 0 {
		gmax = DefaultMaxGrade
	}
	scale := math.Exp2(float64(gmax))
	notStopped, v := 1.0, 0.0
	for i, x := range g {
		if x <= 0 {
			continue
		}
		r := (math.Exp2(float64(min(x, gmax))) - 1) / scale
		v += notStopped * r / float64(i+1)
		notStopped *= 1 - r
	}
	return v
}

// reciprocalRank is 1/rank of the first grade >= t in g, 0 when none is.
func reciprocalRank(g []int, t int) float64 {
	for i, x := range g {
		if x >= t {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// success is 1 when some grade in g is >= t, else 0.
func success(g []int, t int) float64 {
	if countAtLeast(g, t) > 0 {
		return 1
	}
	return 0
}

func countAtLeast(g []int, t int) int {
	n := 0
	for _, x := range g {
		if x >= t {
			n++
		}
	}
	return n
}

func sum(g []int) int {
	s := 0
	for _, x := range g {
		s += x
	}
	return s
}

func frac(a int, b float64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / b
}
