package tuner_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// replayStudySpace is fusion.k (int) and the BM25 weight (float): both
// query-time, so one collection serves the whole study.
func replayStudySpace() []experiments.SpaceParam {
	return []experiments.SpaceParam{
		{Param: "fusion.k", Type: "int", Low: 1, High: 100},
		{Param: "fusion.weights.bm25", Type: "float", Low: 0, High: 1},
	}
}

var replayStudyBaseline = []experiments.TrialSpec{{Name: "baseline", Baseline: true,
	Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0}}}

// studyRun is one tuner.Search on an engine backend: its result, error,
// run, replay log and trials started.
type studyRun struct {
	res     *tuner.Result
	err     error
	run     *runs.Run
	log     string
	started []string
}

// search runs a study on b in mode (nil options: live), into run (nil: a
// new one), with ctx.
func search(ctx context.Context, t *testing.T, b *engineBackend, qs []scoring.Query, run *runs.Run, fixed []experiments.TrialSpec, so sampler.Options, mode tuner.Mode, verify int, progress tuner.Progress, replay ...func(*tuner.ReplayOptions)) studyRun {
	t.Helper()
	if run == nil {
		run = newRun(t, filepath.Join(t.TempDir(), "runs"))
	}
	var log strings.Builder
	rec := &startedRecorder{next: progress}
	o := tuner.Options{Trials: fixed, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run, Progress: rec}
	if mode != tuner.ModeLive {
		o.Replay = &tuner.ReplayOptions{Mode: mode, Resolve: b.Resolve, Verify: verify, Log: &log}
		for _, f := range replay {
			f(o.Replay)
		}
	}
	res, err := tuner.Search(ctx, o, so)
	t.Logf("%s: %d restarts; replay log:\n%s", mode, b.Restarts(), log.String())
	return studyRun{res: res, err: err, run: run, log: log.String(), started: rec.names}
}

// startedRecorder lists the trials started, passing events on to next.
type startedRecorder struct {
	mu    sync.Mutex
	names []string
	next  tuner.Progress
}

func (r *startedRecorder) TrialStarted(i, n int, name string) {
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	if r.next != nil {
		r.next.TrialStarted(i, n, name)
	}
}

func (r *startedRecorder) QueryDone(done, total int) {}

func (r *startedRecorder) TrialDone(i, n int, rec runs.TrialRecord, eta time.Duration) {
	if r.next != nil {
		r.next.TrialDone(i, n, rec, eta)
	}
}

// TestSearchReplayEqualsLive runs the same seeded TPE study over fusion.k
// and the BM25 weight live (a restart per trial) and in replay mode (one
// collection): the same trials, parameters and per-query scores, two
// restarts instead of one per trial, and the best three replayed trials
// verified live (the winner by apply + restart).
func TestSearchReplayEqualsLive(t *testing.T) {
	qs, corpus := demoQueries(t)
	so := sampler.Options{Space: replayStudySpace(), Sampler: sampler.TPE, Seed: 3, Trials: 12, Base: replayStudyBaseline[0].Params}
	bLive, bReplay := newEngineBackend(t, corpus), newEngineBackend(t, corpus)
	live := search(context.Background(), t, bLive, qs, nil, replayStudyBaseline, so, tuner.ModeLive, 0, nil)
	replay := search(context.Background(), t, bReplay, qs, nil, replayStudyBaseline, so, tuner.ModeReplay, 3, nil)
	if live.err != nil || replay.err != nil {
		t.Fatalf("live: %v; replay: %v", live.err, replay.err)
	}
	if got, want := sequence(replay.res.Trials), sequence(live.res.Trials); !reflect.DeepEqual(got, want) {
		t.Fatalf("replay study:\n%s\nlive study:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(live.res.Trials) != 13 {
		t.Fatalf("%d trials, want 13", len(live.res.Trials))
	}
	assertSameScores(t, live.run, replay.run, live.res.Trials)

	// Live: a restart whenever the config changes; replay: the collection
	// and the winner's confirmation.
	changes := 0
	for i, tr := range live.res.Trials {
		if i == 0 || experiments.Params(tr.Params).String() != experiments.Params(live.res.Trials[i-1].Params).String() {
			changes++
		}
	}
	if live.res.Restarts != changes || bLive.Restarts() != changes {
		t.Errorf("live: %d restarts counted, %d engines started, want %d", live.res.Restarts, bLive.Restarts(), changes)
	}
	if replay.res.Restarts != 2 || bReplay.Restarts() != 2 {
		t.Errorf("replay: %d restarts counted, %d engines started, want 2 (collection, winner)", replay.res.Restarts, bReplay.Restarts())
	}
	if n := strings.Count(replay.log, "collected candidate lists"); n != 1 {
		t.Errorf("%d collections, want 1", n)
	}

	recs, liveRecs := readRecords(t, replay.run), readRecords(t, live.run)
	board := runs.NewLeaderboard("", nil, replay.res.Trials)
	for rank, e := range board.Trials {
		r := recs[e.Name]
		want := runs.TrialReplay
		if rank < 3 {
			want = runs.TrialVerified
		}
		if r.Mode != want || e.Mode != want {
			t.Errorf("rank %d %s: recorded mode %q, leaderboard %q, want %q", rank+1, e.Name, r.Mode, e.Mode, want)
		}
		if r.Status != runs.StatusOK || len(r.Rungs) != 0 || r.Queries != live.res.Trials[0].Queries {
			t.Errorf("%s: status %s, rungs %v, queries %d: a replayed trial runs every query", e.Name, r.Status, r.Rungs, r.Queries)
		}
		// The record says which sampler proposed a sampled trial, replayed
		// or not, as the live study's does.
		if got, gotLive := r.Sampler, liveRecs[e.Name].Sampler; strings.HasPrefix(e.Name, "tpe-") && (got != sampler.TPE || gotLive != got) {
			t.Errorf("%s: recorded sampler %q (live %q), want %q", e.Name, got, gotLive, sampler.TPE)
		}
	}
	for _, tr := range live.res.Trials {
		if tr.Mode != runs.TrialLive {
			t.Errorf("live study: %s mode %q", tr.Name, tr.Mode)
		}
	}
	if !strings.Contains(replay.log, "through apply + restart (the winner)") {
		t.Errorf("the winner was not confirmed by apply + restart")
	}
}

// assertSameScores checks that two runs scored every trial and query alike
// (within 1e-9).
func assertSameScores(t *testing.T, a, b *runs.Run, trials []runs.TrialRecord) {
	t.Helper()
	ra, rb := readRecords(t, a), readRecords(t, b)
	for _, tr := range trials {
		x, y := ra[tr.Name], rb[tr.Name]
		if math.Abs(x.Primary-y.Primary) > 1e-9 {
			t.Errorf("%s: primary %.12g vs %.12g", tr.Name, x.Primary, y.Primary)
		}
		qa, err := a.QueryResults(x.Index)
		if err != nil {
			t.Fatal(err)
		}
		qb, err := b.QueryResults(y.Index)
		if err != nil {
			t.Fatal(err)
		}
		if len(qa) != len(qb) {
			t.Fatalf("%s: %d vs %d query results", tr.Name, len(qa), len(qb))
		}
		for i := range qa {
			if qa[i].QueryID != qb[i].QueryID || math.Abs(qa[i].Primary-qb[i].Primary) > 1e-9 {
				t.Errorf("%s: query %s primary %.12g vs %s %.12g", tr.Name, qa[i].QueryID, qa[i].Primary, qb[i].QueryID, qb[i].Primary)
			}
		}
	}
}

// TestSearchReplayResume interrupts a replay study after 5 trials and
// resumes it: the recorded trials are not started again, the sequence is
// an uninterrupted replay study's, and the resumed part costs one
// collection and the winner's restart.
func TestSearchReplayResume(t *testing.T) {
	qs, corpus := demoQueries(t)
	so := sampler.Options{Space: replayStudySpace(), Sampler: sampler.TPE, Seed: 4, Trials: 9, Base: replayStudyBaseline[0].Params}
	whole := search(context.Background(), t, newEngineBackend(t, corpus), qs, nil, replayStudyBaseline, so, tuner.ModeReplay, -1, nil)
	if whole.err != nil {
		t.Fatal(whole.err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := search(ctx, t, newEngineBackend(t, corpus), qs, nil, replayStudyBaseline, so, tuner.ModeReplay, -1, stopAfter{n: 5, cancel: cancel})
	if !errors.Is(first.err, context.Canceled) {
		t.Fatalf("interrupted study: %v, want context.Canceled", first.err)
	}
	done, err := first.run.Trials()
	if err != nil || len(done) != 5 {
		t.Fatalf("%d trials recorded before the interruption (%v), want 5", len(done), err)
	}

	b := newEngineBackend(t, corpus)
	again := search(context.Background(), t, b, qs, first.run, replayStudyBaseline, so, tuner.ModeReplay, 3, nil)
	if again.err != nil {
		t.Fatal(again.err)
	}
	if again.res.Skipped != 5 {
		t.Errorf("resume skipped %d trials, want 5", again.res.Skipped)
	}
	for _, name := range again.started {
		for _, d := range done {
			if name == d.Name {
				t.Errorf("resume started recorded trial %s again", name)
			}
		}
	}
	if again.res.Restarts != 2 || b.Restarts() != 2 {
		t.Errorf("resume: %d restarts counted, %d engines started, want 2 (collection, winner)", again.res.Restarts, b.Restarts())
	}
	got, err := first.run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sequence(got), sequence(whole.res.Trials)) {
		t.Errorf("resumed sequence:\n%s\nuninterrupted:\n%s", strings.Join(sequence(got), "\n"), strings.Join(sequence(whole.res.Trials), "\n"))
	}
	assertSameScores(t, whole.run, first.run, whole.res.Trials)
}

// TestSearchReplayGroups samples an index-time parameter (chunk.size) with
// a query-time one: each chunk size is a replay group (the baseline, with
// no chunk.size, another), collected once while its lists are kept, again
// after they were dropped; every trial scores as it does live.
func TestSearchReplayGroups(t *testing.T) {
	qs, corpus := demoQueries(t)
	space := []experiments.SpaceParam{
		{Param: "chunk.size", Type: "categorical", Choices: []any{0.0, 40.0}},
		{Param: "fusion.k", Type: "int", Low: 1, High: 100},
	}
	so := sampler.Options{Space: space, Sampler: sampler.Random, Seed: 2, Trials: 10, Base: replayStudyBaseline[0].Params}
	live := search(context.Background(), t, newEngineBackend(t, corpus), qs, nil, replayStudyBaseline, so, tuner.ModeLive, 0, nil)
	if live.err != nil {
		t.Fatal(live.err)
	}
	groups, switches := map[any]bool{}, 0
	for i, tr := range live.res.Trials {
		groups[tr.Params["chunk.size"]] = true
		if i == 0 || tr.Params["chunk.size"] != live.res.Trials[i-1].Params["chunk.size"] {
			switches++
		}
	}
	for _, tc := range []struct {
		name        string
		held        int // collections kept
		collections int
	}{
		{"all lists kept", 8, len(groups)},
		{"one list kept", 1, switches},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replay := search(context.Background(), t, newEngineBackend(t, corpus), qs, nil, replayStudyBaseline, so, tuner.ModeReplay, -1, nil,
				func(r *tuner.ReplayOptions) { r.MaxCollections = tc.held })
			if replay.err != nil {
				t.Fatal(replay.err)
			}
			if got, want := sequence(replay.res.Trials), sequence(live.res.Trials); !reflect.DeepEqual(got, want) {
				t.Fatalf("replay study:\n%s\nlive study:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			assertSameScores(t, live.run, replay.run, live.res.Trials)
			if n := strings.Count(replay.log, "collected candidate lists"); n != tc.collections {
				t.Errorf("%d collections, want %d (%d groups, %d switches between them)", n, tc.collections, len(groups), switches)
			}
			modes := map[string]int{}
			for _, tr := range replay.res.Trials {
				modes[tr.Mode]++
			}
			if modes[runs.TrialVerified] != 1 || modes[runs.TrialReplay] != len(replay.res.Trials)-1 {
				t.Errorf("modes %v: want the winner verified, every other trial replayed", modes)
			}
		})
	}
	if len(groups) >= switches {
		t.Errorf("the sampler never returned to a group (%d groups, %d switches): the test shows nothing", len(groups), switches)
	}
}

// TestSearchReplayWithoutCandidates: on a backend that ignores explain a
// replay study fails with ErrNoCandidates, and an auto study runs live,
// the trials a live study runs.
func TestSearchReplayWithoutCandidates(t *testing.T) {
	qs, corpus := demoQueries(t)
	qs = qs[:10]
	b := newEngineBackend(t, corpus)
	b.Alter = func(req *backend.SearchRequest) { req.Explain = false }
	so := sampler.Options{Space: replayStudySpace(), Sampler: sampler.TPE, Seed: 1, Trials: 4, Base: replayStudyBaseline[0].Params}
	if r := search(context.Background(), t, b, qs, nil, replayStudyBaseline, so, tuner.ModeReplay, 0, nil); !errors.Is(r.err, tuner.ErrNoCandidates) {
		t.Errorf("replay mode: got %v, want ErrNoCandidates", r.err)
	}
	auto := search(context.Background(), t, b, qs, nil, replayStudyBaseline, so, tuner.ModeAuto, 0, nil)
	if auto.err != nil {
		t.Fatal(auto.err)
	}
	if !strings.Contains(auto.log, "remaining trials run live") {
		t.Errorf("auto mode did not say it falls back to live:\n%s", auto.log)
	}
	live := search(context.Background(), t, newEngineBackend(t, corpus), qs, nil, replayStudyBaseline, so, tuner.ModeLive, 0, nil)
	if live.err != nil {
		t.Fatal(live.err)
	}
	if got, want := sequence(auto.res.Trials), sequence(live.res.Trials); !reflect.DeepEqual(got, want) {
		t.Errorf("auto study:\n%s\nlive study:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range auto.res.Trials {
		if r.Mode != runs.TrialLive || r.Status != runs.StatusOK {
			t.Errorf("auto mode without candidates: trial %s mode %s status %s", r.Name, r.Mode, r.Status)
		}
	}
	for _, name := range auto.started {
		if strings.HasPrefix(name, "verify ") {
			t.Errorf("auto mode without candidates verified a trial: %s", name)
		}
	}
}

// TestSharedStudyRefusesReplay: a shared study runs every trial live and
// says so rather than ignoring replay mode.
func TestSharedStudyRefusesReplay(t *testing.T) {
	o := tuner.Options{Replay: &tuner.ReplayOptions{Mode: tuner.ModeReplay}}
	_, err := tuner.SearchShared(context.Background(), []tuner.Options{o}, sampler.Options{Space: replayStudySpace(), Trials: 1}, tuner.Shared{})
	if err == nil || !strings.Contains(err.Error(), "replay mode is not supported (a shared study runs every trial live)") {
		t.Errorf("got %v, want the refusal of replay mode", err)
	}
}
