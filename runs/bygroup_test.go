package runs_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestLeaderboardByCategory pivots the leaderboard: one column of primary
// scores per category, "—" (empty in CSV) where a trial scored none, in
// every format, against golden files.
func TestLeaderboardByCategory(t *testing.T) {
	trials := fixtureTrials()
	for i := range trials {
		if trials[i].Status != runs.StatusOK {
			continue
		}
		if trials[i].Categories == nil {
			trials[i].Categories = map[string]map[string]float64{}
		}
		trials[i].Categories["paraphrase"] = map[string]float64{"primary": 0.25 + 0.125*float64(i), "NDCG@10": 0.1}
	}
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, trials)
	checkGolden(t, "TestLeaderboardByCategory", func(w io.Writer, f string) error { return lb.RenderBy(w, "category", f) })
	if err := lb.RenderBy(&bytes.Buffer{}, "topic", "text"); err == nil {
		t.Error("unknown grouping accepted")
	}
}
