package tuner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

func replayTrialSpec(name string, p experiments.Params) experiments.TrialSpec {
	return experiments.TrialSpec{Name: name, Params: p, Baseline: name == "baseline"}
}

func demoScorer(t testing.TB) *scoring.MetricsScorer {
	sc, err := scoring.NewScorer("default", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sweep runs trials on b in mode, verifying the best `verify` replayed
// trials, and returns the result, the error and the run.
func sweep(t *testing.T, b *engineBackend, qs []scoring.Query, trials []experiments.TrialSpec, mode tuner.Mode, verify int) (*tuner.Result, error, *runs.Run) {
	t.Helper()
	run := newRun(t, filepath.Join(t.TempDir(), "runs"))
	var log strings.Builder
	res, err := tuner.Sweep(context.Background(), tuner.Options{
		Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
		Replay: &tuner.ReplayOptions{Mode: mode, Resolve: b.Resolve, Verify: verify, Log: &log},
	})
	t.Logf("replay log:\n%s", log.String())
	return res, err, run
}

// TestReplayVerifiesEveryMethod replays one trial per fusion method and
// normalization (plus depth and min_score variants) from one collection
// and re-runs every one live on the engine's HTTP server: the run fails
// unless each query's scores match.
func TestReplayVerifiesEveryMethod(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0}),
		replayTrialSpec("rrf-k5-weighted", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0, "fusion.weights.bm25": 0.3, "fusion.weights.dense": 0.7}),
		replayTrialSpec("rrf-depth20", experiments.Params{"fusion.method": "rrf", "depth": 20.0}),
		replayTrialSpec("rrf-min-score", experiments.Params{"fusion.method": "rrf", "min_score": 0.025}),
		replayTrialSpec("combsum", experiments.Params{"fusion.method": "combsum"}),
		replayTrialSpec("combmnz", experiments.Params{"fusion.method": "combmnz", "fusion.normalization": "z_score"}),
	}
	for _, n := range fusion.Normalizations {
		trials = append(trials, replayTrialSpec("linear-"+string(n), experiments.Params{"fusion.method": "linear", "fusion.normalization": string(n), "fusion.weights.bm25": 0.4}))
	}
	res, err, run := sweep(t, b, qs, trials, tuner.ModeReplay, 100)
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 3 { // collection, the min_score trial, the winner
		t.Errorf("%d restarts, want 3", res.Restarts)
	}
	recs := readRecords(t, run)
	if len(recs) != len(trials) {
		t.Fatalf("%d records, want %d", len(recs), len(trials))
	}
	for _, tr := range trials {
		r := recs[tr.Name]
		if r.Status != runs.StatusOK || r.Mode != runs.TrialVerified || r.Queries == 0 {
			t.Errorf("trial %s: status %s mode %s queries %d", tr.Name, r.Status, r.Mode, r.Queries)
		}
		mustExist(t, filepath.Join(run.Dir, "trials", fmt.Sprintf("%03d.queries.jsonl", r.Index)))
	}
}

// TestReplayMismatchNamesTrialAndQuery breaks the backend on purpose: it
// ignores the k of per-request fusion overrides (a request's own and its
// variants'), so a trial replayed at another k than the running one
// differs live, and the sweep must say which trial and which query.
func TestReplayMismatchNamesTrialAndQuery(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	b.Alter = func(req *backend.SearchRequest) {
		if req.Fusion != nil && !req.Explain {
			f := *req.Fusion
			f.K = 0 // the running config's k wins
			req.Fusion = &f
		}
		variants := slices.Clone(req.Variants)
		for i := range variants {
			variants[i].K = 0
		}
		req.Variants = variants
	}
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("k=1", experiments.Params{"fusion.k": 1.0}),
		replayTrialSpec("k=2", experiments.Params{"fusion.k": 2.0}),
		replayTrialSpec("k=500", experiments.Params{"fusion.k": 500.0}),
	}
	_, err, run := sweep(t, b, qs, trials, tuner.ModeReplay, 10)
	if !errors.Is(err, tuner.ErrReplayMismatch) {
		t.Fatalf("got %v, want ErrReplayMismatch", err)
	}
	msg := err.Error()
	for _, want := range []string{`trial "k=`, `query "`, "per-request fusion override", "primary replay"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q: %s", want, msg)
		}
	}
	// The replayed trials stay recorded.
	if recs := readRecords(t, run); len(recs) != len(trials) {
		t.Errorf("%d records after the failure, want %d", len(recs), len(trials))
	}
}

// TestVerifyFoldedPassCatchesMismatch: the winner's pass verifies the
// winner on its applied configuration and the other verified trials as
// fusion variants of the same requests; a backend that gets any one of
// them wrong fails the sweep with ErrReplayMismatch naming that trial,
// how it was verified and a query, whether the configured ranking, every
// variant or only the last variant is wrong.
func TestVerifyFoldedPassCatchesMismatch(t *testing.T) {
	qs, corpus := demoQueries(t)
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("k=1", experiments.Params{"fusion.k": 1.0}),
		replayTrialSpec("k=2", experiments.Params{"fusion.k": 2.0}),
		replayTrialSpec("k=500", experiments.Params{"fusion.k": 500.0}),
	}
	for _, tc := range []struct {
		name  string
		alter func(*backend.SearchRequest)
		want  string // how the trial named in the error was verified
	}{
		{"the configured ranking", func(req *backend.SearchRequest) {
			if req.Fusion == nil && !req.Explain {
				req.Fusion = &fusion.Params{K: 7} // not the applied config's k
			}
		}, `through apply + restart (the winner) (one pass for 4 trials)`},
		{"every variant", func(req *backend.SearchRequest) {
			variants := slices.Clone(req.Variants)
			for i := range variants {
				variants[i].K = 7
			}
			req.Variants = variants
		}, `through per-request fusion override on the winner's config (one pass for 4 trials)`},
		{"the last variant", func(req *backend.SearchRequest) {
			if n := len(req.Variants); n > 0 {
				variants := slices.Clone(req.Variants)
				variants[n-1].K = 7
				req.Variants = variants
			}
		}, `through per-request fusion override on the winner's config (one pass for 4 trials)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newEngineBackend(t, corpus)
			b.Alter = tc.alter
			_, err, _ := sweep(t, b, qs, trials, tuner.ModeReplay, 10)
			if !errors.Is(err, tuner.ErrReplayMismatch) {
				t.Fatalf("got %v, want ErrReplayMismatch", err)
			}
			for _, want := range []string{`trial "`, tc.want, `query "`, "primary replay"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
		})
	}
}

// TestReplayWithoutCandidates: a backend that ignores explain cannot be
// replayed; replay mode says so, auto mode evaluates live.
func TestReplayWithoutCandidates(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	b.Alter = func(req *backend.SearchRequest) { req.Explain = false }
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("k=10", experiments.Params{"fusion.k": 10.0}),
	}
	if _, err, _ := sweep(t, b, qs[:10], trials, tuner.ModeReplay, 0); !errors.Is(err, tuner.ErrNoCandidates) {
		t.Errorf("replay mode: got %v, want ErrNoCandidates", err)
	}
	res, err, _ := sweep(t, b, qs[:10], trials, tuner.ModeAuto, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Trials {
		if r.Mode != runs.TrialLive || r.Status != runs.StatusOK {
			t.Errorf("auto mode without candidates: trial %s mode %s status %s", r.Name, r.Mode, r.Status)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want tuner.Mode
		ok   bool
	}{{"live", tuner.ModeLive, true}, {"replay", tuner.ModeReplay, true}, {"auto", tuner.ModeAuto, true}, {"fast", "", false}, {"", "", false}} {
		got, err := tuner.ParseMode(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.in)) {
			t.Errorf("error %q does not quote the input", err)
		}
	}
}

// TestReplayOnQueryError: with queries that fail after their retries,
// replayed trials score them under eval.on_query_error exactly as live
// trials do: the same primary scores, scored-query counts, failure counts
// and policy in the records, for zero and skip.
func TestReplayOnQueryError(t *testing.T) {
	qs, corpus := demoQueries(t)
	qs = qs[:20]
	failing := map[string]bool{qs[3].Text: true, qs[11].Text: true}
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("k=10", experiments.Params{"fusion.k": 10.0}),
		replayTrialSpec("linear", experiments.Params{"fusion.method": "linear", "fusion.normalization": "min_max"}),
	}
	for _, policy := range []string{scoring.QueryErrorZero, scoring.QueryErrorSkip} {
		t.Run(policy, func(t *testing.T) {
			byMode := map[tuner.Mode]map[string]runs.TrialRecord{}
			for _, mode := range []tuner.Mode{tuner.ModeLive, tuner.ModeReplay} {
				b := newEngineBackend(t, corpus)
				b.Fail = func(req backend.SearchRequest) error {
					if failing[req.Query] {
						return errors.New("shard unavailable")
					}
					return nil
				}
				run := newRun(t, filepath.Join(t.TempDir(), "runs"))
				_, err := tuner.Sweep(context.Background(), tuner.Options{
					Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
					Eval:   pass.EvalOptions{Retries: 0, OnQueryError: policy},
					Replay: &tuner.ReplayOptions{Mode: mode, Resolve: b.Resolve, Verify: -1},
				})
				if err != nil {
					t.Fatalf("%s: %v", mode, err)
				}
				byMode[mode] = readRecords(t, run)
			}
			for _, tr := range trials {
				live, replay := byMode[tuner.ModeLive][tr.Name], byMode[tuner.ModeReplay][tr.Name]
				if live.Status != runs.StatusOK || live.Failed != 2 || live.OnQueryError != policy {
					t.Errorf("%s live: status %s, %d failed, policy %q", tr.Name, live.Status, live.Failed, live.OnQueryError)
				}
				if replay.Status != live.Status || replay.Failed != live.Failed || replay.OnQueryError != live.OnQueryError ||
					replay.Queries != live.Queries || math.Abs(replay.Primary-live.Primary) > 1e-9 {
					t.Errorf("%s: replay %s/%d failed/%q/%d queries/%v, live %s/%d/%q/%d/%v", tr.Name,
						replay.Status, replay.Failed, replay.OnQueryError, replay.Queries, replay.Primary,
						live.Status, live.Failed, live.OnQueryError, live.Queries, live.Primary)
				}
			}
		})
	}
}

// TestReplayFloorsGridEqualsLive sweeps a grid over bm25.min_score (with
// dense.min_score and the fused min_score beside it), decoded from an
// experiment file, live (a restart per trial) and in replay mode (one
// collection): every trial scores and routes every query alike, and the
// floors reach the no-results routing of some queries and not others.
func TestReplayFloorsGridEqualsLive(t *testing.T) {
	qs, corpus := demoQueries(t)
	ef, err := experiments.ParseExperimentFile("floors.yaml", []byte(`name: floors
baseline:
  params: {fusion.method: linear, fusion.weights.bm25: 0.6}
grid:
  bm25.min_score: [0, 2, 4, 7, 1000]
  dense.min_score: [-1, 0.2, 2]
`))
	if err != nil {
		t.Fatal(err)
	}
	trials, _, err := ef.Expand()
	if err != nil {
		t.Fatal(err)
	}
	trials = append(trials, replayTrialSpec("fused-min-score", experiments.Params{"fusion.method": "linear", "bm25.min_score": 2.0, "min_score": 0.6}))
	live, err, liveRun := sweep(t, newEngineBackend(t, corpus), qs, trials, tuner.ModeLive, 0)
	if err != nil {
		t.Fatal(err)
	}
	replay, err, replayRun := sweep(t, newEngineBackend(t, corpus), qs, trials, tuner.ModeReplay, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(replay.Trials) != len(trials) || len(live.Trials) != len(trials) {
		t.Fatalf("%d replayed, %d live trials, want %d", len(replay.Trials), len(live.Trials), len(trials))
	}
	assertSameScores(t, liveRun, replayRun, live.Trials)
	recs, liveRecs := readRecords(t, replayRun), readRecords(t, liveRun)
	routed := map[int]bool{} // queries routed no_results, by count
	for _, tr := range trials {
		r, l := recs[tr.Name], liveRecs[tr.Name]
		if r.Mode == runs.TrialLive || l.Mode != runs.TrialLive || r.Status != runs.StatusOK {
			t.Errorf("%s: replay mode %q status %s, live mode %q", tr.Name, r.Mode, r.Status, l.Mode)
		}
		qr, err := replayRun.QueryResults(r.Index)
		if err != nil {
			t.Fatal(err)
		}
		ql, err := liveRun.QueryResults(l.Index)
		if err != nil {
			t.Fatal(err)
		}
		none := 0
		for i := range qr {
			if qr[i].Routing != ql[i].Routing {
				t.Errorf("%s: query %s routed %q replayed, %q live", tr.Name, qr[i].QueryID, qr[i].Routing, ql[i].Routing)
			}
			if qr[i].Routing == fusion.RoutingNoResults {
				none++
			}
		}
		routed[none] = true
	}
	if !routed[0] || !routed[len(qs)] || len(routed) < 3 {
		t.Errorf("no-results counts %v: want none, all and some in between", routed)
	}
}
