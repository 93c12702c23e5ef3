package rerank

import (
	"fmt"
	"sort"
)

// Defaults and bounds of the stage's settings (rerank.window,
// rerank.weight).
const (
	DefaultWindow = 20
	MaxWindow     = 1000
	DefaultWeight = 1.0
)

// Normalize maps xs onto [0, 1] by min-max: (x - min) / (max - min), every
// value 1 when all are equal (no spread tells them apart). xs is not
// modified.
func Normalize(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	lo, hi := bounds(xs)
	for i, x := range xs {
		if hi > lo {
			out[i] = (x - lo) / (hi - lo)
		} else {
			out[i] = 1
		}
	}
	return out
}

func bounds(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs[1:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// Rerank reorders a ranking whose first len(rr) entries the reranker
// scored. fused holds the fused scores of the whole ranking, best first;
// rr the reranker's scores of its first entries (the window); weight, in
// [0, 1], the reranker's share of the blend.
//
// Inside the window each entry scores
//
//	weight × Normalize(rr)[i] + (1 − weight) × Normalize(fused[:w])[i]
//
// (so in [0, 1]), and the window is sorted by that score, best first, ties
// by fused position. The entries after the window keep their order and
// score their fused score on the window's min-max scale, (s − min) /
// (max − min), or s − min when the window's fused scores are all equal:
// at most 0, so never above a reranked entry (on a tie the window comes
// first). weight 0 keeps the fused order.
//
// It returns the new order (indices into fused) and the score of each
// entry in that order.
func Rerank(fused, rr []float64, weight float64) (order []int, scores []float64, err error) {
	w := len(rr)
	if w > len(fused) {
		return nil, nil, fmt.Errorf("rerank: %d reranker scores for %d hits", w, len(fused))
	}
	if weight < 0 || weight > 1 || weight != weight {
		return nil, nil, fmt.Errorf("rerank: weight must be between 0 and 1 (got %v)", weight)
	}
	order = make([]int, len(fused))
	scores = make([]float64, len(fused))
	if w == 0 {
		for i := range fused {
			order[i], scores[i] = i, fused[i]
		}
		return order, scores, nil
	}
	nf, nr := Normalize(fused[:w]), Normalize(rr)
	blended := make([]float64, w)
	for i := range w {
		blended[i] = weight*nr[i] + (1-weight)*nf[i]
		order[i] = i
	}
	sort.SliceStable(order[:w], func(a, b int) bool { return blended[order[a]] > blended[order[b]] })
	for i := range w {
		scores[i] = blended[order[i]]
	}
	lo, hi := bounds(fused[:w])
	for i := w; i < len(fused); i++ {
		order[i] = i
		if hi > lo {
			scores[i] = (fused[i] - lo) / (hi - lo)
		} else {
			scores[i] = fused[i] - lo
		}
	}
	return order, scores, nil
}
