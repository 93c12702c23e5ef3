package fusion

import "sort"

// WeaviateRankConstant is the constant of Weaviate's rankedFusion: each
// list contributes weight / (position + 60) with zero-based positions
// (FusionRanked in usecases/traverser/hybrid/hybrid_fusion.go, v1.35.2:
// "score := float32(weights[i] / float64(i+60))", with a TODO to make it
// configurable). In the one-based ranks of Fuse's rrf that is k = 59.
const WeaviateRankConstant = 60

// WeaviateOneBasedK is WeaviateRankConstant in one-based ranks: Weaviate's
// rankedFusion is Fuse's rrf with k = 59 and weights 1-alpha (bm25) and
// alpha (dense), up to float32 rounding.
const WeaviateOneBasedK = WeaviateRankConstant - 1

// Weaviate fusion types, as the hybrid query's fusionType names them.
const (
	WeaviateRankedFusion        = "rankedFusion"
	WeaviateRelativeScoreFusion = "relativeScoreFusion"
)

// WeaviateHybrid fuses the two legs of a Weaviate hybrid query offline
// exactly as Weaviate v1.35.2 does (usecases/traverser/hybrid/
// hybrid_fusion.go and explorer_hybrid.go), given each leg issued alone:
//
//   - vector: the nearVector leg, best first; Candidate.Score is 1 -
//     distance (Weaviate's SecondarySortValue of a vector result).
//   - keyword: the bm25 leg, best first; Candidate.Score is the BM25 score.
//
// Candidate.ID is the object's UUID (Weaviate's last tie-breaker) and
// DocID the document it holds. fusionType is WeaviateRankedFusion or
// WeaviateRelativeScoreFusion (anything else panics); alpha in [0, 1]
// weighs the vector leg by alpha and the keyword leg by 1 - alpha. As in
// Weaviate, alpha = 0 drops the vector leg and alpha = 1 the keyword leg
// (the engine does not run them).
//
// rankedFusion: a leg contributes float32(w / (pos + 60)), pos zero-based.
// relativeScoreFusion: each leg is min-max normalized, then weighted:
// float32(w) * (s - min) / (max - min) in float32; a leg whose scores are
// all equal (a one-result leg among them) gives every document the leg's
// weight, w, not w * 1 of an ordinary best. Contributions are summed in
// float32, vector first (the order Weaviate fills its result sets in);
// Result.Score is that float32 value, the score Weaviate returns (as a
// string) for the hybrid query.
//
// Ties follow Weaviate's sort: two scores closer than 1e-7 (squared
// difference below 1e-14) tie; ties break by SecondarySortValue descending
// (with the same tolerance), where a document's value is its BM25 score
// when the keyword leg holds it (the keyword leg's result object is the one
// kept), else 1 - distance; then by UUID ascending. That comparison is not
// transitive when near-ties chain (a ~ b ~ c, a !~ c); Weaviate then sorts
// a map's random order with an unstable sort, so its own order among such
// chains varies from call to call. WeaviateHybrid sorts stably from UUID
// order, so it is deterministic and equals Weaviate's order whenever
// Weaviate's is.
func WeaviateHybrid(fusionType string, alpha float64, vector, keyword []Candidate) []Result {
	type leg struct {
		list []Candidate
		w    float64
	}
	var legs []leg
	if alpha > 0 {
		legs = append(legs, leg{dedupe(vector), alpha})
	}
	if 1-alpha > 0 {
		legs = append(legs, leg{dedupe(keyword), 1 - alpha})
	}
	byID := map[string]*weaviateAcc{}
	var order []*weaviateAcc
	for _, l := range legs {
		var lo, hi float32
		if fusionType == WeaviateRelativeScoreFusion {
			lo, hi = scoreRange32(l.list)
		}
		for pos, c := range l.list {
			s := weaviateScore(fusionType, l.w, pos, c.Score, lo, hi)
			a, ok := byID[c.ID]
			if !ok {
				a = &weaviateAcc{res: Result{ID: c.ID, DocID: docOf(&c)}}
				byID[c.ID] = a
				order = append(order, a)
			}
			a.score += s
			a.secondary = float32(c.Score) // the later leg's object is kept
		}
	}
	sortWeaviate(order)
	out := make([]Result, len(order))
	for i, a := range order {
		out[i] = a.res
		out[i].Score = float64(a.score)
	}
	return out
}

// weaviateAcc is a document's fused score so far, in float32 as Weaviate
// keeps it, and its secondary sort value.
type weaviateAcc struct {
	res       Result
	score     float32
	secondary float32
}

// scoreRange32 is the lowest and highest score of list in float32 (0, 0
// for an empty list).
func scoreRange32(list []Candidate) (lo, hi float32) {
	if len(list) == 0 {
		return 0, 0
	}
	lo, hi = float32(list[0].Score), float32(list[0].Score)
	for _, c := range list {
		lo, hi = min(lo, float32(c.Score)), max(hi, float32(c.Score))
	}
	return lo, hi
}

// weaviateScore is a leg's contribution, weighted w, for the candidate at
// pos (0 first) with score, as Weaviate computes it in float32: rankedFusion
// w/(pos+60); relativeScoreFusion w times the score min-max normalized
// over [lo, hi] (w itself when the leg's scores are all equal).
func weaviateScore(fusionType string, w float64, pos int, score float64, lo, hi float32) float32 {
	switch fusionType {
	case WeaviateRankedFusion:
		return float32(w / float64(pos+WeaviateRankConstant))
	case WeaviateRelativeScoreFusion:
		s := float32(w)
		if hi != lo {
			// Separate float32 conversions: Weaviate computes each step in
			// float32, and a fused multiply-add would not.
			d := float32(float32(score) - lo)
			s = float32(s * float32(d/float32(hi-lo)))
		}
		return s
	default:
		panic("fusion: unknown Weaviate fusionType " + fusionType)
	}
}

// sortWeaviate sorts order as Weaviate does (see WeaviateHybrid), stably
// from UUID order.
func sortWeaviate(order []*weaviateAcc) {
	sort.Slice(order, func(i, j int) bool { return order[i].res.ID < order[j].res.ID })
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		d := float64(b.score - a.score)
		if d*d < 1e-14 {
			d2 := float64(b.secondary - a.secondary)
			if d2*d2 < 1e-14 {
				return a.res.ID < b.res.ID
			}
			return a.secondary > b.secondary
		}
		return float64(a.score) > float64(b.score)
	})
}
