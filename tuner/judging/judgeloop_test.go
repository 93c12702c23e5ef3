package judging_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// judgeLoopRun records two trials on one query: A ranks u, a, b (a and b
// relevant but hidden), B ranks z, x, y (z the one visible judgment).
// top is a recorded top of unjudged documents.
func top(docs ...string) []runs.RankedDoc {
	out := make([]runs.RankedDoc, len(docs))
	for i, d := range docs {
		out[i] = runs.RankedDoc{DocID: d, Grade: -1}
	}
	return out
}

func judgeLoopRun(t *testing.T) (*runs.Run, runs.Leaderboard) {
	t.Helper()
	st, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := st.Create(runs.Manifest{Tool: "test"}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var recs []runs.TrialRecord
	for i, tr := range []struct {
		name    string
		primary float64
		docs    []string
	}{{"A", 0, []string{"u", "a", "b"}}, {"B", 0.47, []string{"z", "x", "y"}}} {
		rec := runs.TrialRecord{Index: i, Name: tr.name, Status: runs.StatusOK, Mode: "live", Primary: tr.primary}
		if err := run.RecordTrial(rec, []runs.QueryResult{{QueryID: "q1", Top: top(tr.docs...)}}); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return run, runs.NewLeaderboard("NDCG@10", nil, recs)
}

// truthJudge labels the documents truth grades, recording every document
// it is asked about in asked.
func truthJudge(truth map[string]int, asked *[]string) judging.JudgeFunc {
	return func(_ context.Context, pairs []pool.Pair) ([]labels.Label, error) {
		var out []labels.Label
		for _, p := range pairs {
			*asked = append(*asked, p.Doc)
			if g, ok := truth[p.Doc]; ok {
				out = append(out, labels.Label{Dataset: p.Dataset, Query: p.Query, Doc: p.Doc, Grade: g, Judge: "truth", Source: labels.SourceFile})
			}
		}
		return out, nil
	}
}

func TestJudgeLoop(t *testing.T) {
	truth := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		name    string
		budget  int
		target  float64
		stopped string
		asked   []string
		labels  int
		after   []string
		tau     float64
	}{
		// Round 1 asks all 5 unjudged pairs, gets a and b; the pairs left
		// unlabelled are not asked again, so the pool runs dry.
		{"pool runs dry", 10, 1, "pool empty", []string{"u", "a", "x", "b", "y"}, 2, []string{"A", "B"}, -1},
		// Priority: u (1/1), then a and x (1/2, ties by doc id), ...; with
		// a alone A scores 0.387 to B's 0.613: the order holds.
		{"budget", 2, 1, "budget", []string{"u", "a"}, 1, []string{"B", "A"}, 1},
		// B's top 3 is 1/3 judged, A's none: mean 1/6 >= 0.1.
		{"target met before any round", 10, 0.1, "target", nil, 0, []string{"B", "A"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run, lb := judgeLoopRun(t)
			store, err := labels.Open(context.Background(), filepath.Join(t.TempDir(), "labels.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			var asked []string
			var orders [][]string
			sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			loop := &judging.JudgeLoop{
				Name: "truth", Store: store, Dataset: "ds", Budget: tc.budget, Target: tc.target, Leading: 2, K: 3,
				Judge:   truthJudge(truth, &asked),
				OnRound: func(_ int, order []string) { orders = append(orders, order) },
			}
			rec, j, err := loop.Run(context.Background(), run, lb, scoring.Judgments{"q1": {"z": 1}}, sc)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Stopped != tc.stopped {
				t.Errorf("stopped %q, want %q", rec.Stopped, tc.stopped)
			}
			if !slices.Equal(asked, tc.asked) {
				t.Errorf("asked %v, want %v", asked, tc.asked)
			}
			labelsGot := 0
			for _, rd := range rec.Rounds {
				labelsGot += rd.Labels
			}
			if labelsGot != tc.labels || len(j["q1"]) != 1+tc.labels {
				t.Errorf("labels %d, judgments %v; want %d new", labelsGot, j["q1"], tc.labels)
			}
			if got := []string{rec.After[0].Name, rec.After[1].Name}; !slices.Equal(got, tc.after) {
				t.Errorf("after %v, want %v", got, tc.after)
			}
			if rec.Before[0].Name != "B" || rec.KendallTau != tc.tau {
				t.Errorf("before %v, tau %v; want B first, tau %v", rec.Before, rec.KendallTau, tc.tau)
			}
			if len(orders) != len(rec.Rounds) {
				t.Errorf("OnRound called %d times for %d rounds", len(orders), len(rec.Rounds))
			}
			stored, err := store.Latest(context.Background(), "ds")
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != tc.labels {
				t.Errorf("store holds %d labels, want %d", len(stored), tc.labels)
			}
		})
	}
}

func TestJudgeLoopValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		loop judging.JudgeLoop
		want string
	}{
		{"budget", judging.JudgeLoop{Budget: 0}, "--judge-budget must be >= 1 (got 0)"},
		{"target", judging.JudgeLoop{Budget: 1, Target: 1.5}, "--judge-target must be in (0, 1] (got 1.5)"},
		{"depth", judging.JudgeLoop{Budget: 1, K: 21}, "judge depth must be in 1..20 (got 21)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.loop.Validate()
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestJudgeLoopDecision judges the pairs that can change who leads: B
// leads on z alone, and A's hidden a and b, once judged, put A ahead.
// Round 1 leaves out x: B ranks it second after z, so B's NDCG is 1
// whatever its grade. With A ahead, x can lower B again: round 2 asks it,
// and then nothing unjudged is left to move the lead.
func TestJudgeLoopDecision(t *testing.T) {
	run, lb := judgeLoopRun(t)
	sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]int{"a": 1, "b": 1}
	var asked []string
	var log strings.Builder
	loop := &judging.JudgeLoop{
		Name: "truth", Dataset: "ds", Budget: 10, Leading: 2, K: 3, Strategy: decision.StrategyDecision, Log: &log,
		Judge: truthJudge(truth, &asked),
	}
	rec, j, err := loop.Run(context.Background(), run, lb, scoring.Judgments{"q1": {"z": 1}}, sc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != "decision settled" || len(rec.Rounds) != 2 || rec.Rounds[0].Asked != 4 {
		t.Errorf("stopped %q after %d rounds, want decision settled after 2 (4 pairs, then x)\n%s", rec.Stopped, len(rec.Rounds), log.String())
	}
	slices.Sort(asked)
	if want := []string{"a", "b", "u", "x", "y"}; !slices.Equal(asked, want) {
		t.Errorf("asked %v, want %v", asked, want)
	}
	if rec.After[0].Name != "A" || len(j["q1"]) != 3 {
		t.Errorf("after %v, judgments %v; want A first and a, b judged", rec.After, j["q1"])
	}
	if !strings.Contains(log.String(), "vs the runner-up A [") {
		t.Errorf("the round's log line lacks the open bounds: %q", log.String())
	}
}
