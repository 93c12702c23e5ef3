package settings

import (
	"errors"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"

	"github.com/fusiontune/fusiontune/runs"
)

// TestJudgeLoopRefuses: a loop without a budget is the user's error and
// a judge that is neither llm nor file:PATH wraps judge.ErrSpec, before
// any store opens.
func TestJudgeLoopRefuses(t *testing.T) {
	t.Chdir(t.TempDir())
	var s Settings
	if err := Load(&s, &s, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	var ie *inputerr.Error
	if _, err := s.JudgeLoop("llm", judging.JudgeLoop{Target: 0.9, Leading: 5}, nil, runs.NewRedactor()); !errors.As(err, &ie) {
		t.Errorf("no budget: err = %v, want an input error", err)
	}
	if _, err := s.JudgeLoop("gpt", judging.JudgeLoop{Budget: 10, Target: 0.9, Leading: 5}, nil, runs.NewRedactor()); !errors.Is(err, judge.ErrSpec) {
		t.Errorf("bad spec: err = %v, want judge.ErrSpec", err)
	}
}
