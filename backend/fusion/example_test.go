package fusion_test

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

func ExampleFuse() {
	lists := map[string][]fusion.Candidate{
		"bm25":  {{ID: "a#0", DocID: "a", Score: 12.5}, {ID: "a#1", DocID: "a", Score: 9}, {ID: "b#0", DocID: "b", Score: 7}},
		"dense": {{ID: "b#0", DocID: "b", Score: 0.82}, {ID: "c#3", DocID: "c", Score: 0.80}},
	}
	// Document mode: a#1 collapses into a; b is rank 2 in bm25, rank 1 in dense.
	for _, r := range fusion.Fuse(lists, fusion.Params{Method: fusion.RRF, K: 60}, false) {
		fmt.Printf("%s %.5f\n", r.ID, r.Score)
	}
	// Output:
	// b 0.03252
	// a 0.01639
	// c 0.01613
}

func ExampleFuser() {
	pl := fusion.Prepare(map[string][]fusion.Candidate{
		"bm25":  {{ID: "a", Score: 3}, {ID: "b", Score: 1}},
		"dense": {{ID: "b", Score: 0.9}, {ID: "a", Score: 0.1}},
	})
	var f fusion.Fuser // one per goroutine; reuses its buffers
	var top []fusion.Result
	for _, w := range []float64{0.2, 0.8} {
		p := fusion.Params{Method: fusion.Linear, Weights: map[string]float64{"bm25": w, "dense": 1 - w}}
		top = f.FuseTopInto(top, pl, p, false, 1)
		fmt.Printf("bm25 weight %.1f: %s\n", w, top[0].ID)
	}
	// Output:
	// bm25 weight 0.2: b
	// bm25 weight 0.8: a
}

func ExampleWeaviateHybrid() {
	// The two legs of a Weaviate hybrid query issued alone: nearVector
	// (scores 1 - distance) and bm25. ID is the object's UUID.
	vector := []fusion.Candidate{{ID: "u-c", DocID: "c", Score: 0.9}, {ID: "u-a", DocID: "a", Score: 0.8}}
	keyword := []fusion.Candidate{{ID: "u-a", DocID: "a", Score: 11}, {ID: "u-b", DocID: "b", Score: 6}}
	for _, ft := range []string{fusion.WeaviateRankedFusion, fusion.WeaviateRelativeScoreFusion} {
		for _, r := range fusion.WeaviateHybrid(ft, 0.5, vector, keyword) {
			fmt.Printf("%s %s %.7g\n", ft, r.DocID, r.Score)
		}
	}
	// a and c tie under relativeScoreFusion (.5 each): a comes first by
	// its BM25 score, Weaviate's secondary sort value.
	// Output:
	// rankedFusion a 0.01653006
	// rankedFusion c 0.008333334
	// rankedFusion b 0.008196721
	// relativeScoreFusion a 0.5
	// relativeScoreFusion c 0.5
	// relativeScoreFusion b 0
}
