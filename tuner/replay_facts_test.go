package tuner_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestReplayedFactsInOneDerivation: what the statistics need of a replayed
// trial — its per-query scores, its result key and its judged-only values —
// come from one derivation of its collection, equal (bit for bit, byte for
// byte) to what they are computed from otherwise: the scores to
// QueryScores, the key to resultKey of QueryResults, the judged-only values
// to ScoreRecorded of QueryResults. Both ways of scoring the condensed
// lists are checked: by grade (under the collection's judgments, in the
// sweep's own run, which shares the golden set's maps, and in a run read
// again, which holds equal copies) and by id (under other judgments: each
// query's first judged document judged again one grade higher).
func TestReplayedFactsInOneDerivation(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	trials := fiveFusionTrials()
	res, err, run := sweep(t, b, qs, trials, tuner.ModeReplay, -1)
	if err != nil {
		t.Fatal(err)
	}
	sc := demoScorer(t)
	judgments := scoring.JudgmentsOf(qs)
	other := scoring.Judgments{}
	for id, j := range judgments {
		other[id] = maps.Clone(j)
		for doc, g := range j {
			other[id][doc] = g + 1
			break
		}
	}
	names := scoring.JudgedOnlyMetrics(sc.Metrics())
	if len(names) == 0 {
		t.Fatal("the demo scorer has no judged-only metrics: the test would check nothing")
	}
	again, err := runs.Load(run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	again.Derive = replay.NewDeriver()
	replayed := 0
	for _, r := range []*runs.Run{run, again} {
		for _, tr := range res.Trials {
			if tr.Replay == nil {
				continue
			}
			replayed++
			full, err := r.QueryResults(tr.Index)
			if err != nil {
				t.Fatal(err)
			}
			scores, err := r.QueryScores(tr.Index)
			if err != nil {
				t.Fatal(err)
			}
			before := tuner.Derivations()
			got, key, judged, err := tuner.ReplayedFacts(r, tr, judgments, sc)
			if err != nil {
				t.Fatal(err)
			}
			if n := tuner.Derivations() - before; n != 1 {
				t.Errorf("trial %s: %d derivations, want 1", tr.Name, n)
			}
			if !reflect.DeepEqual(got, scores) {
				t.Errorf("trial %s: scores differ from QueryScores'", tr.Name)
			}
			if want := analysis.ResultKey(full); key != want {
				t.Errorf("trial %s: result key %s, want %s", tr.Name, key, want)
			}
			want := scoring.ScoreRecorded(full, judgments, sc, names).JudgedOnly
			if !maps.Equal(judged, want) {
				t.Errorf("trial %s: judged-only %v, want %v", tr.Name, judged, want)
			}
			_, _, judged, err = tuner.ReplayedFacts(r, tr, other, sc)
			if err != nil {
				t.Fatal(err)
			}
			if want := scoring.ScoreRecorded(full, other, sc, names).JudgedOnly; !maps.Equal(judged, want) || maps.Equal(want, judged0(t, full, judgments, sc, names)) {
				t.Errorf("trial %s: under other judgments judged-only %v, want %v (and unlike the golden set's)", tr.Name, judged, want)
			}
		}
	}
	if replayed < 2*(len(trials)-1) {
		t.Fatalf("%d replayed trials checked, want %d", replayed, 2*(len(trials)-1))
	}
}

func judged0(t *testing.T, full []runs.QueryResult, j scoring.Judgments, sc scoring.Scorer, names []string) map[string]float64 {
	t.Helper()
	return scoring.ScoreRecorded(full, j, sc, names).JudgedOnly
}

// engineFactory opens one engine backend for every run.
type engineFactory struct{ b *engineBackend }

func (f engineFactory) Check(map[string]any) error { return nil }
func (f engineFactory) Describe(p map[string]any) string {
	return experiments.Params(p).String()
}
func (f engineFactory) Open(string, io.Writer) (backend.Backend, error) { return f.b, nil }

// TestRunTakesTheReplaysFacts: in a replay sweep, what the statistics need
// of each replayed trial (its per-query scores, result key and judged-only
// values) is made in the trial's replay, in the same fusion of each query
// as its summary: the statistics derive none of them from the collection
// again, and they are those the statistics compute alone from the run's
// records — the paired tests, intervals and judged-only values equal, and
// trials whose results repeat another's marked so (bm25 alone at two k,
// both replayed; the baseline's twin, replayed, and the baseline, verified
// live: a key made in the replay equals one made of live results); with
// no metric compared besides the primary score and with one (the replay
// keeps the other metrics' values in a slab, put back into per-query
// scores only for a comparison that reads them).
func TestRunTakesTheReplaysFacts(t *testing.T) {
	for _, metrics := range [][]string{nil, {"NDCG@10"}} {
		t.Run(fmt.Sprintf("metrics=%v", metrics), func(t *testing.T) { runTakesTheReplaysFacts(t, metrics) })
	}
}

func runTakesTheReplaysFacts(t *testing.T, metrics []string) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	trials := append(fiveFusionTrials(),
		replayTrialSpec("bm25-k10", experiments.Params{"fusion.method": "rrf", "fusion.k": 10.0, "fusion.weights.bm25": 1.0, "fusion.weights.dense": 0.0}),
		replayTrialSpec("bm25-k20", experiments.Params{"fusion.method": "rrf", "fusion.k": 20.0, "fusion.weights.bm25": 1.0, "fusion.weights.dense": 0.0}),
		// The baseline's ranking (RRF, k=60, equal weights) at twice the
		// scores: the baseline wins and is verified live, its twin stays
		// replayed.
		replayTrialSpec("baseline-x2", experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0, "fusion.weights.bm25": 2.0, "fusion.weights.dense": 2.0}))
	store, err := runs.Open(filepath.Join(t.TempDir(), "runs"))
	if err != nil {
		t.Fatal(err)
	}
	c := tuner.Config{
		Store: store, Manifest: runs.Manifest{Tool: "test", Backend: "engine"},
		Trials: trials, Queries: qs, Dataset: "demo", Scorer: demoScorer(t), Eval: pass.EvalOptions{Concurrency: 2},
		Backend: engineFactory{b}, Stats: analysis.StatsOptions{Seed: 7, Metrics: metrics},
		Replay: &tuner.ReplayOptions{Mode: tuner.ModeReplay, Resolve: b.Resolve, Verify: 1},
	}
	before := tuner.FactsDerived()
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if n := tuner.FactsDerived() - before; n != 0 {
		t.Errorf("the statistics derived the facts of %d replayed trials again, want 0 (made in the replay)", n)
	}
	recs, err := out.Run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, r := range recs {
		if r.Mode == runs.TrialReplay {
			replayed++
		}
	}
	if replayed < len(trials)-1 {
		t.Fatalf("%d replayed trials, want %d (all but the verified winner)", replayed, len(trials)-1)
	}
	keys := map[string]string{}
	for _, r := range recs {
		res, err := out.Run.QueryResults(r.Index)
		if err != nil {
			t.Fatal(err)
		}
		keys[r.Name] = analysis.ResultKey(res)
	}
	if keys["bm25-k10"] != keys["bm25-k20"] || keys["baseline"] != keys["baseline-x2"] {
		t.Fatal("bm25 alone at k=10 and k=20, or the baseline at twice its weights, rank differently: the test would check fewer repeated results")
	}
	if w, err := out.Leaderboard.Find("baseline"); err != nil || w.Mode != runs.TrialVerified {
		t.Fatalf("the baseline is not the verified winner (%v): its replayed twin would not be checked against live results", err)
	}
	checkSameStatistics(t, out.Leaderboard, statisticsAlone(t, out, c))
	for k, e := range out.Leaderboard.Trials {
		repeats := ""
		for _, other := range out.Leaderboard.Trials[:k] {
			if keys[other.Name] == keys[e.Name] && other.SameAs == "" {
				repeats = other.Name
				break
			}
		}
		if e.SameAs != repeats {
			t.Errorf("trial %s: same results as %q, want %q", e.Name, e.SameAs, repeats)
		}
	}
}
