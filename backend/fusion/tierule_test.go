package fusion_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/trec"
)

// TestRankingIsTrecEvalOrder checks the tie rule against trec_eval's: every
// fused ranking, in document and in passage mode (documents at their first
// chunk), is already in the order trec_eval sorts a run file of its scores
// (trec.Compare: score descending, then document id descending), so
// evaluating the written run scores the ranking that was served. The
// synthetic lists have many exact ties; ties by id ascending fail this.
func TestRankingIsTrecEvalOrder(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		lists := synthetic(seed, 60)
		for _, p := range paramGrid() {
			for _, passage := range []bool{false, true} {
				got := fusion.Fuse(lists, p, passage)
				seen := map[string]bool{}
				var run []trec.Result
				for _, r := range got {
					if !seen[r.DocID] {
						seen[r.DocID] = true
						run = append(run, trec.Result{DocNo: r.DocID, Score: r.Score})
					}
				}
				if err := trec.CheckOrder("q", run); err != nil {
					t.Fatalf("seed %d %+v passage %v: %v", seed, p, passage, err)
				}
			}
		}
	}
}
