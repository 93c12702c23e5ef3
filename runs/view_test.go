package runs_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestRenderView: each view of a recorded run renders what the
// leaderboard's own renderers write; a Pareto view of a run that measured
// no latency is ErrNoLatency (exit code 2) naming the run and latency.json.
func TestRenderView(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Experiments: "abc"}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	stored, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	var plain, judged, byCat bytes.Buffer
	_ = stored.Render(&plain, "md")
	_ = stored.RenderBy(&byCat, "category", "md")
	stored.ShowJudgedOnly = true
	_ = stored.Render(&judged, "md")
	for _, tc := range []struct {
		name string
		v    runs.View
		want string
	}{{"plain", runs.View{}, plain.String()}, {"judged-only", runs.View{JudgedOnly: true}, judged.String()}, {"by category", runs.View{By: "category"}, byCat.String()}} {
		var got bytes.Buffer
		if err := runs.RenderView(&got, run, tc.v, "md"); err != nil || got.String() != tc.want {
			t.Errorf("%s: err %v\n got:\n%s\nwant:\n%s", tc.name, err, got.String(), tc.want)
		}
	}
	err = runs.RenderView(&bytes.Buffer{}, run, runs.View{Pareto: true}, "text")
	var coder interface{ ExitCode() int }
	if !errors.Is(err, runs.ErrNoLatency) || !errors.As(err, &coder) || coder.ExitCode() != 2 ||
		!strings.Contains(err.Error(), run.ID()) || !strings.Contains(err.Error(), runs.LatencyFile) {
		t.Errorf("pareto without latency: %v", err)
	}
}
