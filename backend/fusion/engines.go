package fusion

import (
	"sort"
)

// This file holds the fusion formulas of external engines, each as the
// engine computes it (rank base, constant, weighting, float width, the
// engine's treatment of one-result lists and missing documents), so that a
// tuner replaying an external engine offline ranks as the engine does. Fuse
// is the project's own engine's formula (rrf: sum of w / (k + rank),
// one-based ranks, float64).
//
// Every formula takes each retriever's list best first (the slice order is
// the ranking; Candidate.Rank is not consulted) and returns the fused
// ranking best first. A document missing from a list gets nothing from it
// in every formula here.

// DefaultElasticRankConstant is Elasticsearch's and OpenSearch's default
// rank_constant (rank_window_size defaults to the request's size, for
// which the tuner's depth stands).
const DefaultElasticRankConstant = 60.0

// ElasticRRF fuses lists with the reciprocal rank fusion of Elasticsearch's
// rrf retriever and OpenSearch's score-ranker-processor:
//
//	score(d) = sum over lists holding d of weight_i / (k + rank_i(d))
//
// with rank_i one-based ("rank( result(q), d ) is d's rank within the
// result(q) starting from 1", Elasticsearch reference, "Reciprocal rank
// fusion", rrf.html, 8.8 to current), k the rank_constant (default 60,
// at least 1) and each list cut at window (rank_window_size; window <= 0
// keeps whole lists). weights[i] weighs list i (nil: 1 for all, as
// Elasticsearch's unweighted rrf; OpenSearch's
// combination.parameters.weights are in [0, 1] and sum to 1). A weight of 0
// keeps a list's documents with nothing from it.
//
// Ties: Elasticsearch breaks equal RRF scores by shard and Lucene document
// number, which no replay can know; ElasticRRF breaks them by the package's
// tie rule (document id descending). The scores are float64; Elasticsearch
// reports _score as a 32-bit float, so compare with a relative tolerance of
// 2^-23 against a live cluster.
func ElasticRRF(lists [][]Candidate, weights []float64, k float64, window int) []Result {
	acc := newAccumulator()
	for i, list := range lists {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		if window > 0 && len(list) > window {
			list = list[:window]
		}
		for r, c := range dedupe(list) {
			acc.add(c, w/(k+float64(r+1)))
		}
	}
	return acc.ranking()
}

// DefaultQdrantRankConstant is Qdrant's RRF constant when the query names
// none (DEFAULT_RRF_K in lib/segment/src/common/reciprocal_rank_fusion.rs).
const DefaultQdrantRankConstant = 2

// QdrantRRF fuses lists as Qdrant's Fusion.RRF does (rrf_scoring in
// lib/segment/src/common/reciprocal_rank_fusion.rs), in 32-bit floats:
//
//	score(d) = sum over lists holding d of 1 / ((pos_i(d) + 1) / w_i + k - 1)
//
// with pos_i zero-based, so with w_i = 1 it is 1 / (pos + k): the best
// document of a list gets 1/k (1/2 with the default k = 2), not 1/(k+1).
// weights[i] is list i's weight (nil: 1 for all); a weight <= 0 gives its
// list's documents a score of 0 from it, and they stay in the ranking.
// A weight w "compresses" positions: position p with weight w scores as
// position (p+1)/w - 1 with weight 1. Sums run in list order in float32,
// as Qdrant's do; the scores returned are those float32 values.
//
// Ties: Qdrant sorts with an unstable sort and "does not break ties";
// QdrantRRF breaks them by the package's tie rule.
func QdrantRRF(lists [][]Candidate, weights []float32, k int) []Result {
	acc := newAccumulator()
	acc.f32 = true
	for i, list := range lists {
		w := float32(1)
		if weights != nil {
			w = weights[i]
		}
		for pos, c := range dedupe(list) {
			var s float32
			if w > 0 {
				s = 1 / (float32(pos+1)/w + float32(k) - 1)
			}
			acc.add32(c, s)
		}
	}
	return acc.ranking()
}

// accumulator sums per-document contributions and ranks them by the
// package's tie rule.
type accumulator struct {
	f32   bool
	order []string
	docs  map[string]*Result
	sum32 map[string]float32
}

func newAccumulator() *accumulator {
	return &accumulator{docs: map[string]*Result{}, sum32: map[string]float32{}}
}

func (a *accumulator) entry(c Candidate) *Result {
	id := docOf(&c)
	r, ok := a.docs[id]
	if !ok {
		r = &Result{ID: id, DocID: id}
		a.docs[id] = r
		a.order = append(a.order, id)
	}
	return r
}

func (a *accumulator) add(c Candidate, s float64) { a.entry(c).Score += s }

func (a *accumulator) add32(c Candidate, s float32) {
	r := a.entry(c)
	a.sum32[r.ID] += s
	r.Score = float64(a.sum32[r.ID])
}

// ranking returns the documents by score descending, ties by id
// descending (the package's tie rule).
func (a *accumulator) ranking() []Result {
	out := make([]Result, 0, len(a.order))
	for _, id := range a.order {
		out = append(out, *a.docs[id])
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].DocID > out[j].DocID
	})
	return out
}

// dedupe collapses a list to documents: the first entry of a document
// keeps its position, later ones are dropped (engines rank objects, one
// per document).
func dedupe(list []Candidate) []Candidate {
	seen := make(map[string]bool, len(list))
	out := make([]Candidate, 0, len(list))
	for _, c := range list {
		id := docOf(&c)
		if seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, c)
	}
	return out
}
