package runs_test

import (
	"bytes"
	"os"
	"path/filepath"
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
	for _, f := range []string{"text", "json", "md", "csv"} {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := lb.RenderBy(&b, "category", f); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "TestLeaderboardByCategory.golden."+f)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from %s:\n%s", f, golden, b.String())
			}
		})
	}
	if err := lb.RenderBy(&bytes.Buffer{}, "topic", "text"); err == nil {
		t.Error("unknown grouping accepted")
	}
}
