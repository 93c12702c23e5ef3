package tuner_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// callLog is what a sweep did, in order: the backend's applies (by
// fusion.k), restarts, and the trials reported done.
type callLog struct {
	mu     sync.Mutex
	events []string
}

func (l *callLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *callLog) index(event string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Index(l.events, event)
}

// loggedBackend logs an engine backend's applies and restarts.
type loggedBackend struct {
	*engineBackend
	log *callLog
}

func (b loggedBackend) Apply(ctx context.Context, params map[string]any) error {
	b.log.add("apply k=%v", params["fusion.k"])
	return b.engineBackend.Apply(ctx, params)
}

func (b loggedBackend) Restart(ctx context.Context) error {
	b.log.add("restart")
	return b.engineBackend.Restart(ctx)
}

// loggedProgress logs the trials the loop takes up and those reported
// done (durable). Taking up a trial named in awaits waits (up to 30 s)
// for the event it names: one that only the loop itself would cause
// after taking the trial up never comes, and the wait fails the test.
type loggedProgress struct {
	t      *testing.T
	log    *callLog
	awaits map[string]string
}

func (p loggedProgress) TrialStarted(_, _ int, name string) {
	p.log.add("start %s", name)
	want, ok := p.awaits[name]
	if !ok {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); p.log.index(want) < 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Errorf("taking up %s: no %q without the loop", name, want)
			return
		}
	}
}

func (loggedProgress) QueryDone(int, int) {}

func (p loggedProgress) TrialDone(_, _ int, rec runs.TrialRecord, _ time.Duration) {
	p.log.add("done %s", rec.Name)
}

// TestNextTrialStartsAhead: in a live sweep of a fixed plan, the next
// trial's config is applied and its backend restarted once the trial
// before has searched, before that trial is recorded and reported done;
// every restart is counted once; a trial an earlier one answers for
// (the same config) gets no restart; and the results are those of a
// sweep that starts each trial's backend in turn (the same scores).
func TestNextTrialStartsAhead(t *testing.T) {
	qs, corpus := demoQueries(t)
	trials := []experiments.TrialSpec{
		{Name: "k10", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 10.0}},
		{Name: "k20", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 20.0}},
		{Name: "k20-again", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 20.0}},
		{Name: "k40", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 40.0}},
	}
	log := &callLog{}
	eb := newEngineBackend(t, corpus)
	b := loggedBackend{eb, log}
	run := newRun(t, t.TempDir())
	res, err := tuner.Sweep(context.Background(), tuner.Options{
		Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
		Progress: loggedProgress{t: t, log: log, awaits: map[string]string{"k20": "apply k=20"}}, Fingerprint: fingerprintOfParams,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("events: %q", log.events)
	// k20's backend starts without the loop taking k20 up (ahead, once
	// k10 has searched: the progress waits for its apply); k40's does
	// not, as k20-again (which reuses k20) is before it: the loop
	// applies it once it takes it up.
	if a, d := log.index("start k40"), log.index("apply k=40"); a < 0 || d < 0 || a > d {
		t.Error(`"start k40" should come before "apply k=40"`)
	}
	if a := log.index("apply k=20"); a < 0 || !slices.Contains(log.events[a:log.index("apply k=40")], "restart") {
		t.Error("k20's apply is not followed by its restart")
	}
	if n := strings.Count(strings.Join(log.events, "\n"), "restart"); res.Restarts != n || n != 3 || eb.Restarts() != 3 {
		t.Errorf("the sweep counts %d restarts, the log has %d, the backend made %d; want 3 (k10, k20, k40)", res.Restarts, n, eb.Restarts())
	}
	got := map[string]float64{}
	for _, tr := range res.Trials {
		got[tr.Name] = tr.Primary
		if tr.Status != runs.StatusOK {
			t.Errorf("trial %s: %s %s", tr.Name, tr.Status, tr.Error)
		}
	}
	// Each trial alone on a fresh backend scores the same.
	for _, spec := range []experiments.TrialSpec{trials[0], trials[3]} {
		alone, err := tuner.Sweep(context.Background(), tuner.Options{
			Trials: []experiments.TrialSpec{spec}, Queries: qs, Backend: newEngineBackend(t, corpus), Scorer: demoScorer(t), Run: newRun(t, t.TempDir()),
		})
		if err != nil {
			t.Fatal(err)
		}
		if p := alone.Trials[0].Primary; p != got[spec.Name] {
			t.Errorf("trial %s: %v in the sweep, %v alone", spec.Name, got[spec.Name], p)
		}
	}
}

// fingerprintOfParams keys a trial by its parameters (a backend whose
// configs differ exactly when their parameters do).
func fingerprintOfParams(p experiments.Params) (string, error) {
	return fmt.Sprint(p), nil
}

// TestStartAheadFailures: a backend started ahead that fails to start
// fails its trial with the error it would have failed with in turn, the
// next trial starts its own; a sweep that stops before it takes up the
// trial started ahead counts that restart too.
func TestStartAheadFailures(t *testing.T) {
	qs, corpus := demoQueries(t)
	k10 := experiments.TrialSpec{Name: "k10", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 10.0}}
	bad := experiments.TrialSpec{Name: "bad", Params: experiments.Params{"dense.model": "nope"}}
	k40 := experiments.TrialSpec{Name: "k40", Params: experiments.Params{"fusion.method": "rrf", "fusion.k": 40.0}}
	sweepOn := func(b *engineBackend, o tuner.Options) *tuner.Result {
		t.Helper()
		o.Queries, o.Backend, o.Scorer, o.Run = qs, b, demoScorer(t), newRun(t, t.TempDir())
		res, err := tuner.Sweep(context.Background(), o)
		if err != nil && !errors.Is(err, tuner.ErrFailureBudget) {
			t.Fatal(err)
		}
		return res
	}
	alone := sweepOn(newEngineBackend(t, corpus), tuner.Options{Trials: []experiments.TrialSpec{bad}})
	eb := newEngineBackend(t, corpus)
	res := sweepOn(eb, tuner.Options{Trials: []experiments.TrialSpec{k10, bad, k40}})
	status := map[string]runs.TrialRecord{}
	for _, tr := range res.Trials {
		status[tr.Name] = tr
	}
	if b := status["bad"]; b.Status != runs.StatusFailed || b.Error != alone.Trials[0].Error || b.Error == "" {
		t.Errorf("trial bad, started ahead: %s %q; alone: %q", b.Status, b.Error, alone.Trials[0].Error)
	}
	if status["k10"].Status != runs.StatusOK || status["k40"].Status != runs.StatusOK {
		t.Errorf("k10 %s, k40 %s; want both ok", status["k10"].Status, status["k40"].Status)
	}
	if res.Restarts != 3 || eb.Restarts() != 3 {
		t.Errorf("%d restarts counted, %d made; want 3 (k10, bad's attempt, k40)", res.Restarts, eb.Restarts())
	}

	// Every search of the first trial fails: the budget of one failed
	// trial stops the sweep before it takes up k40, whose backend
	// started ahead.
	eb = newEngineBackend(t, corpus)
	eb.Fail = func(backend.SearchRequest) error { return errors.New("refused") }
	res = sweepOn(eb, tuner.Options{Trials: []experiments.TrialSpec{k10, k40}, FailureBudget: 1})
	if len(res.Trials) != 1 || res.Trials[0].Status != runs.StatusFailed {
		t.Fatalf("trials %+v; want k10 alone, failed", res.Trials)
	}
	if res.Restarts != eb.Restarts() || eb.Restarts() != 2 {
		t.Errorf("%d restarts counted, %d made; want 2 (k10, k40 ahead)", res.Restarts, eb.Restarts())
	}
}
