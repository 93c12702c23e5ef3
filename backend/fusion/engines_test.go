package fusion_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// list builds a list of documents named by ids, best first, with scores.
func list(ids string, scores ...float64) []fusion.Candidate {
	out := make([]fusion.Candidate, len(ids))
	for i := range ids {
		out[i] = fusion.Candidate{ID: ids[i : i+1]}
		if i < len(scores) {
			out[i].Score = scores[i]
		}
	}
	return out
}

func checkRanking(t *testing.T, got []fusion.Result, want []want, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i, w := range want {
		if got[i].DocID != w.id || math.Abs(got[i].Score-w.score) > tol {
			t.Fatalf("result %d: got %s %.10g, want %s %.10g (all: %+v)", i, got[i].DocID, got[i].Score, w.id, w.score, got)
		}
	}
}

// TestElasticRRF checks Elasticsearch's and OpenSearch's RRF against the
// formula of the Elasticsearch reference (rrf.html: score += 1.0 / (k +
// rank), rank starting from 1) computed by hand.
func TestElasticRRF(t *testing.T) {
	text := list("abcd") // a#1 b#2 c#3 d#4
	knn := list("cead")  // c#1 e#2 a#3 d#4
	tests := []struct {
		name    string
		weights []float64
		k       float64
		window  int
		want    []want
	}{{
		// a = 1/61 + 1/63; c = 1/63 + 1/61; d = 2/64; b = 1/62; e = 1/62.
		// a and c tie (.032266), b and e tie: broken by id descending.
		name: "k 60, whole lists", k: 60,
		want: []want{{"c", 1.0/63 + 1.0/61}, {"a", 1.0/61 + 1.0/63}, {"d", 2.0 / 64}, {"e", 1.0 / 62}, {"b", 1.0 / 62}},
	}, {
		// rank_constant 1, rank_window_size 2: text keeps a b, knn keeps c e.
		name: "k 1, window 2", k: 1, window: 2,
		want: []want{{"c", 0.5}, {"a", 0.5}, {"e", 1.0 / 3}, {"b", 1.0 / 3}},
	}, {
		// OpenSearch weights .7 (text) and .3 (knn), k 60:
		// a = .7/61 + .3/63 = .016237; c = .7/63 + .3/61 = .016029;
		// b = .7/62 = .011290; d = .7/64 + .3/64 = .015625; e = .3/62.
		name: "opensearch weights", weights: []float64{0.7, 0.3}, k: 60,
		want: []want{{"a", 0.7/61 + 0.3/63}, {"c", 0.7/63 + 0.3/61}, {"d", 1.0 / 64}, {"b", 0.7 / 62}, {"e", 0.3 / 62}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRanking(t, fusion.ElasticRRF([][]fusion.Candidate{text, knn}, tt.weights, tt.k, tt.window), tt.want, 1e-15)
		})
	}
}

// TestQdrantRRF checks Qdrant's RRF against the values Qdrant's own tests
// assert (test_rrf_scoring and test_rrf_scoring_zero_weight in
// lib/segment/src/common/reciprocal_rank_fusion.rs): zero-based positions,
// k = 2, float32.
func TestQdrantRRF(t *testing.T) {
	f32 := func(x float32) float64 { return float64(x) }
	tests := []struct {
		name    string
		lists   [][]fusion.Candidate
		weights []float32
		k       int
		want    []want
	}{{
		name: "one list", lists: [][]fusion.Candidate{list("a")}, k: 2,
		want: []want{{"a", 0.5}}, // 1 / (0 + 2)
	}, {
		// Qdrant's three-list example: 1 = 1/3 + 1/2 + 1/4 = 1.0833334,
		// 2 = 1/2 + 1/3, 3 = 1/4 + 1/3, 5 = 1/2.
		name:  "three lists",
		lists: [][]fusion.Candidate{list("21"), list("123"), list("531")}, k: 2,
		want: []want{{"1", f32(1.0833334)}, {"2", f32(0.8333334)}, {"3", f32(0.5833334)}, {"5", 0.5}},
	}, {
		// Weight 0 keeps the document with score 0.
		name: "zero weight", lists: [][]fusion.Candidate{list("1"), list("2")}, weights: []float32{1, 0}, k: 2,
		want: []want{{"1", 0.5}, {"2", 0}},
	}, {
		// Weights 3 and 1, k 60: position p of the first list scores
		// 1 / ((p+1)/3 + 59). a: 1/(1/3+59) + 1/(2+59); b: 1/(2/3+59) + 1/61.
		name: "weighted", lists: [][]fusion.Candidate{list("ab"), list("ba")}, weights: []float32{3, 1}, k: 60,
		want: []want{
			{"b", f32(float32(1/(float32(2)/3+59)) + float32(1.0/60))},
			{"a", f32(float32(1/(float32(1)/3+59)) + float32(1.0/61))},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRanking(t, fusion.QdrantRRF(tt.lists, tt.weights, tt.k), tt.want, 0)
		})
	}
}

// TestWeaviateHybrid checks Weaviate's two fusion types against values
// computed by hand from its source (usecases/traverser/hybrid/
// hybrid_fusion.go, v1.35.2), including the example of
// FusionRelativeScore's doc comment (scores 1, 8, 6, 11 normalize to 0,
// .7, .5, 1).
func TestWeaviateHybrid(t *testing.T) {
	f := func(x float32) float64 { return float64(x) }
	vec := list("cab", 0.9, 0.8, 0.5)    // 1 - distance
	kw := list("abd", 11, 8, 6)          // BM25
	example := list("dbca", 11, 8, 6, 1) // the doc comment's scores, best first
	tests := []struct {
		name, fusion string
		alpha        float64
		vec, kw      []fusion.Candidate
		tol          float64 // decimal hand values of float32 sums
		want         []want
	}{{
		// Keyword only: normalized scores are the doc comment's.
		name: "relative, doc example", fusion: fusion.WeaviateRelativeScoreFusion, alpha: 0, kw: example,
		want: []want{{"d", 1}, {"b", f(0.7)}, {"c", f(0.5)}, {"a", 0}},
	}, {
		// rankedFusion, alpha .5: pos 0 scores .5/60, pos 1 .5/61, pos 2 .5/62.
		// a = .5/61 + .5/60, c = .5/60, b = .5/62 + .5/61, d = .5/62.
		name: "ranked, alpha .5", fusion: fusion.WeaviateRankedFusion, alpha: 0.5, vec: vec, kw: kw,
		want: []want{
			{"a", f(float32(0.5/61) + float32(0.5/60))},
			{"b", f(float32(0.5/62) + float32(0.5/61))},
			{"c", f(float32(0.5 / 60))},
			{"d", f(float32(0.5 / 62))},
		},
	}, {
		// alpha 1: the keyword leg is not run; one leg with weight 1.
		name: "ranked, alpha 1", fusion: fusion.WeaviateRankedFusion, alpha: 1, vec: vec, kw: kw,
		want: []want{{"c", f(float32(1.0 / 60))}, {"a", f(float32(1.0 / 61))}, {"b", f(float32(1.0 / 62))}},
	}, {
		// relativeScoreFusion, alpha .75: vector .9 .8 .5 -> 1, .75, 0
		// (times .75); keyword 11 8 6 -> 1, .4, 0 (times .25).
		// a = .75*.75 + .25 = .8125, c = .75, b = 0 + .25*.4 = .1, d = 0.
		name: "relative, alpha .75", fusion: fusion.WeaviateRelativeScoreFusion, alpha: 0.75, vec: vec, kw: kw, tol: 1e-7,
		want: []want{{"a", 0.8125}, {"c", 0.75}, {"b", 0.1}, {"d", 0}},
	}, {
		// A one-result leg gives its document the leg's weight (.4 for a);
		// the keyword leg a(11), b(8) normalizes to 1, 0: a = .4 + .6, b = 0.
		name: "relative, one-result leg", fusion: fusion.WeaviateRelativeScoreFusion, alpha: 0.4, vec: list("a", 0.3), kw: list("ab", 11, 8), tol: 1e-7,
		want: []want{{"a", 1}, {"b", 0}},
	}, {
		// Exact ties (alpha .5, a at 0 in vector only, b at 0 in keyword
		// only) break by the kept object's SecondarySortValue: b's BM25 2
		// beats a's 1 - distance .9.
		name: "tie by secondary value", fusion: fusion.WeaviateRankedFusion, alpha: 0.5, vec: list("a", 0.9), kw: list("b", 2),
		want: []want{{"b", f(float32(0.5 / 60))}, {"a", f(float32(0.5 / 60))}},
	}, {
		// Equal score and secondary value: UUID ascending.
		name: "tie by id", fusion: fusion.WeaviateRankedFusion, alpha: 0.5, vec: list("b", 2), kw: list("a", 2),
		want: []want{{"a", f(float32(0.5 / 60))}, {"b", f(float32(0.5 / 60))}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRanking(t, fusion.WeaviateHybrid(tt.fusion, tt.alpha, tt.vec, tt.kw), tt.want, tt.tol)
		})
	}
}

// TestWeaviateRankedIsRRFWithK59 checks the translation the Weaviate kind
// relies on: rankedFusion ranks as Fuse's rrf with k = 59 (one-based) and
// weights alpha and 1 - alpha, whenever no two float32 scores fall within
// Weaviate's 1e-7 tie tolerance.
func TestWeaviateRankedIsRRFWithK59(t *testing.T) {
	vec := list("cabdefg")
	kw := list("gfabxyz")
	for _, alpha := range []float64{0.1, 0.3, 0.7, 0.9} {
		got := fusion.WeaviateHybrid(fusion.WeaviateRankedFusion, alpha, vec, kw)
		ref := fusion.Fuse(map[string][]fusion.Candidate{"dense": vec, "bm25": kw},
			fusion.Params{Method: fusion.RRF, K: fusion.WeaviateOneBasedK, Weights: map[string]float64{"dense": alpha, "bm25": 1 - alpha}}, false)
		for i := range ref {
			if got[i].DocID != ref[i].DocID || math.Abs(got[i].Score-ref[i].Score) > 1e-8 {
				t.Fatalf("alpha %g, result %d: weaviate %s %.9g, rrf k=59 %s %.9g", alpha, i, got[i].DocID, got[i].Score, ref[i].DocID, ref[i].Score)
			}
		}
	}
}
