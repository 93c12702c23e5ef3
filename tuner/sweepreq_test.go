package tuner_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestSweepRequestCheck: the rules tying a sweep's flags together are
// input errors naming the flag, and a request is shared when it names a
// storage or more than one replica.
func TestSweepRequestCheck(t *testing.T) {
	ok := tuner.SharedRequest{Parallel: 1, Beat: time.Second, Timeout: 10 * time.Second}
	with := func(f func(*tuner.SweepRequest)) tuner.SweepRequest {
		r := tuner.SweepRequest{Shared: ok}
		f(&r)
		return r
	}
	tests := []struct {
		name   string
		req    tuner.SweepRequest
		shared bool
		want   string // "" no error
	}{
		{"plain sweep", with(func(*tuner.SweepRequest) {}), false, ""},
		{"parallel", with(func(r *tuner.SweepRequest) { r.Shared.Parallel = 2 }), true, ""},
		{"storage", with(func(r *tuner.SweepRequest) { r.Shared.Storage, r.Shared.Study = "sqlite:///s.db", "s" }), true, ""},
		{"worker without storage", with(func(r *tuner.SweepRequest) { r.Worker, r.Shared.Study = true, "s" }), false, "worker: --storage URL and --study NAME are required"},
		{"study without storage", with(func(r *tuner.SweepRequest) { r.Shared.Study = "s" }), false, "--study needs --storage"},
		{"heartbeat", with(func(r *tuner.SweepRequest) { r.Shared.Timeout = time.Second }), false, "must be longer than --heartbeat"},
		{"bad storage", with(func(r *tuner.SweepRequest) { r.Shared.Storage = "redis://h/0" }), false, `--storage: `},
		{"shared resume", with(func(r *tuner.SweepRequest) { r.Shared.Parallel, r.Resume = 2, "x" }), false, "--resume does not apply"},
		{"shared apply best", with(func(r *tuner.SweepRequest) { r.Shared.Parallel, r.ApplyBest = 2, true }), false, "--apply-best does not apply"},
		{"retry without resume", with(func(r *tuner.SweepRequest) { r.RetryFailed = true }), false, "--retry-failed: only with --resume RUN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shared, err := tt.req.Check()
			checkInputErr(t, err, tt.want)
			if shared != tt.shared {
				t.Errorf("shared = %v, want %v", shared, tt.shared)
			}
		})
	}
}

// TestSweepRequestCheckBackend: --apply-best needs a production config,
// and http backends take no replicas.
func TestSweepRequestCheckBackend(t *testing.T) {
	tests := []struct {
		name             string
		req              tuner.SweepRequest
		kind, production string
		want             string
	}{
		{"apply best", tuner.SweepRequest{ApplyBest: true}, kinds.Embedded, "engine.yaml", ""},
		{"apply best without config", tuner.SweepRequest{ApplyBest: true}, kinds.Embedded, "", "--apply-best: backend.config must name"},
		{"http replicas", tuner.SweepRequest{Shared: tuner.SharedRequest{Parallel: 2}}, kinds.HTTP, "svc.yaml", "--parallel 2: an http backend is one service"},
		{"process replicas", tuner.SweepRequest{Shared: tuner.SharedRequest{Parallel: 2}}, kinds.Process, "svc.yaml", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInputErr(t, tt.req.CheckBackend(tt.kind, tt.production), tt.want)
		})
	}
}

// TestLiveOnly: a shared study runs live; --mode replay is refused and an
// explicit auto gets a note.
func TestLiveOnly(t *testing.T) {
	tests := []struct {
		name     string
		replay   *tuner.ReplayOptions
		given    bool
		want     string
		wantNote bool
	}{
		{"live", nil, true, "", false},
		{"auto", &tuner.ReplayOptions{Mode: tuner.ModeAuto}, false, "", false},
		{"auto given", &tuner.ReplayOptions{Mode: tuner.ModeAuto}, true, "", true},
		{"replay", &tuner.ReplayOptions{Mode: tuner.ModeReplay}, true, "--mode replay: studies shared", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tuner.Config{Replay: tt.replay}
			var log bytes.Buffer
			err := c.LiveOnly(tt.given, &log)
			checkInputErr(t, err, tt.want)
			if err == nil && c.Replay != nil {
				t.Error("replay still on")
			}
			if got := strings.Contains(log.String(), "note: --mode auto"); got != tt.wantNote {
				t.Errorf("note %v, want %v: %q", got, tt.wantNote, log.String())
			}
		})
	}
}

// TestReplayFor: --mode and --verify are checked, and a backend that
// cannot resolve fusion settings runs live (replay refused).
func TestReplayFor(t *testing.T) {
	tests := []struct {
		name, mode string
		verify     int
		want       string
	}{
		{"auto", "auto", 3, ""},
		{"bad mode", "fast", 3, "--mode: "},
		{"negative verify", "auto", -1, "--verify: must be >= 0 (got -1)"},
		{"replay", "replay", 0, "--mode replay: needs a backend kind that replays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tuner.ReplayFor(nil, tt.mode, tt.verify)
			checkInputErr(t, err, tt.want)
			if r != nil {
				t.Errorf("replay options %+v for a backend without a fusion resolver", r)
			}
		})
	}
}

// TestStoppedEarly: a run stopped by max_consecutive_failures says what
// was kept and how to resume; other errors pass unchanged.
func TestStoppedEarly(t *testing.T) {
	c := tuner.Config{MaxConsecutiveFailures: 3}
	other := errors.New("boom")
	if got := c.StoppedEarly(nil, other); got != other {
		t.Errorf("other error: %v", got)
	}
	err := c.StoppedEarly(&tuner.Outcome{}, tuner.ErrStoppedEarly)
	if !errors.Is(err, tuner.ErrStoppedEarly) || !strings.Contains(err.Error(), "the 0 finished trials are kept (eval.max_consecutive_failures is 3") ||
		!strings.HasSuffix(err.Error(), "fix the cause and run again") {
		t.Errorf("got %v", err)
	}
}

// checkInputErr fails unless err is nil (want "") or an inputerr.Error
// containing want.
func checkInputErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want an input error containing %q", err, want)
	}
}
