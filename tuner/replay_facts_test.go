package tuner_test

import (
	"maps"
	"reflect"
	"testing"

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
	judgments := tuner.JudgmentsOf(qs)
	other := tuner.Judgments{}
	for id, j := range judgments {
		other[id] = maps.Clone(j)
		for doc, g := range j {
			other[id][doc] = g + 1
			break
		}
	}
	names := tuner.JudgedOnlyMetrics(sc.Metrics())
	if len(names) == 0 {
		t.Fatal("the demo scorer has no judged-only metrics: the test would check nothing")
	}
	again, err := runs.Load(run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	again.Derive = tuner.NewDeriver()
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
			if want := tuner.ResultKey(full); key != want {
				t.Errorf("trial %s: result key %s, want %s", tr.Name, key, want)
			}
			want := tuner.ScoreRecorded(full, judgments, sc, names).JudgedOnly
			if !maps.Equal(judged, want) {
				t.Errorf("trial %s: judged-only %v, want %v", tr.Name, judged, want)
			}
			_, _, judged, err = tuner.ReplayedFacts(r, tr, other, sc)
			if err != nil {
				t.Fatal(err)
			}
			if want := tuner.ScoreRecorded(full, other, sc, names).JudgedOnly; !maps.Equal(judged, want) || maps.Equal(want, judged0(t, full, judgments, sc, names)) {
				t.Errorf("trial %s: under other judgments judged-only %v, want %v (and unlike the golden set's)", tr.Name, judged, want)
			}
		}
	}
	if replayed < 2*(len(trials)-1) {
		t.Fatalf("%d replayed trials checked, want %d", replayed, 2*(len(trials)-1))
	}
}

func judged0(t *testing.T, full []runs.QueryResult, j tuner.Judgments, sc tuner.Scorer, names []string) map[string]float64 {
	t.Helper()
	return tuner.ScoreRecorded(full, j, sc, names).JudgedOnly
}
