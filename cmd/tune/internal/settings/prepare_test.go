package settings

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// TestPrepareSweepJudgeRefuses: a sweep's judge request is checked with
// everything else before any run starts (no runs directory appears); each
// problem is the user's input error naming the flag.
func TestPrepareSweepJudgeRefuses(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	if err := os.WriteFile("other.qrels", []byte("nosuchquery 0 d1 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("good.qrels", []byte("q001 0 kb-0028 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s Settings
	if err := Load(&s, &s, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	req := tuner.SweepRequest{Mode: string(tuner.ModeReplay), Verify: tuner.DefaultVerify}
	judge := func(spec string, budget int, target float64, given ...string) SweepJudge {
		return SweepJudge{Spec: spec, Budget: budget, Target: target, Leading: judging.DefaultJudgeLeading, Given: given}
	}
	for _, tc := range []struct {
		name   string
		j      SweepJudge
		shared bool
		want   string
	}{
		{"no budget", judge("file:x.qrels", 0, judging.DefaultJudgeTarget), false, "--judge-budget must be >= 1 (got 0)"},
		{"bad spec", judge("llm-ish", 5, judging.DefaultJudgeTarget, "judge-budget"), false, `--judge: want llm or file:PATH (got "llm-ish")`},
		{"target", judge("file:x", 5, 0, "judge-budget", "judge-target"), false, "--judge-target must be in (0, 1] (got 0)"},
		{"bounds without --judge", judge("", 5, judging.DefaultJudgeTarget, "judge-budget"), false, "--judge-budget: only with --judge"},
		{"qrels of another dataset", judge("file:other.qrels", 5, judging.DefaultJudgeTarget, "judge-budget"), false, "query ids are not in the golden set of dataset"},
		{"shared study", judge("file:good.qrels", 5, judging.DefaultJudgeTarget), true, "--judge: not for a study shared through --storage or --parallel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.PrepareSweep(req, tc.shared, tc.j, runs.NewRedactor(), &bytes.Buffer{})
			var ie *inputerr.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want an input error containing %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(s.RunsDir); !os.IsNotExist(err) {
		t.Errorf("runs directory %s: %v, want none", s.RunsDir, err)
	}
}

// TestPrepareSweepSharedReplayRefused: a shared study (--parallel 2) runs
// every trial live, so --mode replay is refused before any run starts.
func TestPrepareSweepSharedReplayRefused(t *testing.T) {
	s := defaultSettings(t)
	req := tuner.SweepRequest{Mode: string(tuner.ModeReplay), ModeGiven: true, Shared: tuner.SharedRequest{Parallel: 2, Beat: studystore.DefaultHeartbeatInterval, Timeout: studystore.DefaultHeartbeatTimeout}}
	shared, err := req.Check()
	if err != nil || !shared {
		t.Fatalf("Check: shared %v, err %v", shared, err)
	}
	_, err = s.PrepareSweep(req, shared, SweepJudge{}, runs.NewRedactor(), &bytes.Buffer{})
	var ie *inputerr.Error
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--mode replay: studies shared through --storage or --parallel run every trial live") {
		t.Errorf("err = %v, want the input error", err)
	}
	if _, err := os.Stat(s.RunsDir); !os.IsNotExist(err) {
		t.Errorf("runs directory %s: %v, want none", s.RunsDir, err)
	}
}
