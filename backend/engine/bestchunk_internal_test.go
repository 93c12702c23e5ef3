package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// bestChunkScan is the definition bestChunks implements, one document at a
// time: the chunk of doc ranked best in any list, each cut at its
// retriever's floor under s (its first chunk in a list; lowest rank, ties
// by retriever name), doc itself when no list holds one.
func bestChunkScan(lists map[string][]fusion.Candidate, s fusion.Settings, doc string) string {
	best, bestRank, bestList := doc, math.MaxInt, ""
	for name, l := range lists {
		for _, c := range l[:s.Floor(name, l)] {
			if c.DocID == doc {
				if c.Rank < bestRank || (c.Rank == bestRank && name < bestList) {
					best, bestRank, bestList = c.ID, c.Rank, name
				}
				break
			}
		}
	}
	return best
}

// TestBestChunksIsTheScan checks bestChunks against bestChunkScan on random
// chunked lists: repeated documents within a list, equal ranks across
// lists, candidates without a document id, floors cutting lists short.
func TestBestChunksIsTheScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	for trial := range 500 {
		lists := map[string][]fusion.Candidate{}
		s := fusion.Settings{Floors: map[string]float64{}}
		for _, name := range []string{"bm25", "dense", "third"}[:1+rng.IntN(3)] {
			var l []fusion.Candidate
			for i := range rng.IntN(30) {
				doc := fmt.Sprintf("d%d", rng.IntN(12))
				c := fusion.Candidate{ID: fmt.Sprintf("%s#%d", doc, rng.IntN(4)), DocID: doc, Score: float64(30 - i), Rank: i + 1}
				switch rng.IntN(8) {
				case 0:
					c.DocID, c.ID = "", doc // a whole document without a document id
				case 1:
					c.Rank = 1 + rng.IntN(3) // ranks that tie across lists
				}
				l = append(l, c)
			}
			lists[name] = l
			if rng.IntN(2) == 0 {
				s.Floors[name] = float64(rng.IntN(31))
			}
		}
		best := bestChunks(lists, s)
		for d := range 13 {
			doc := fmt.Sprintf("d%d", d)
			got := doc
			if b, ok := best[doc]; ok {
				got = b.id
			}
			if want := bestChunkScan(lists, s, doc); got != want {
				t.Fatalf("trial %d, %s: bestChunks gives %q, the scan %q; lists %v, floors %v", trial, doc, got, want, lists, s.Floors)
			}
		}
	}
}
