package settings

import (
	"errors"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestFileJudgePath: llm, file:PATH, and anything else refused.
func TestFileJudgePath(t *testing.T) {
	for _, tc := range []struct {
		spec, path string
		file, bad  bool
	}{{"llm", "", false, false}, {"file:x.qrels", "x.qrels", true, false}, {"file:", "", false, true}, {"gpt", "", false, true}} {
		path, file, err := FileJudgePath(tc.spec)
		if path != tc.path || file != tc.file || errors.Is(err, ErrJudgeSpec) != tc.bad {
			t.Errorf("%q: %q, %v, %v", tc.spec, path, file, err)
		}
	}
}

// TestJudgeLoopRefuses: a loop without a budget is the user's error and
// a judge that is neither llm nor file:PATH wraps ErrJudgeSpec, before
// any store opens.
func TestJudgeLoopRefuses(t *testing.T) {
	t.Chdir(t.TempDir())
	var s Settings
	if err := Load(&s, &s, "", nil, nil); err != nil {
		t.Fatal(err)
	}
	var ie *tuner.InputError
	if _, err := s.JudgeLoop("llm", tuner.JudgeLoop{Target: 0.9, Leading: 5}, nil, runs.NewRedactor()); !errors.As(err, &ie) {
		t.Errorf("no budget: err = %v, want an input error", err)
	}
	if _, err := s.JudgeLoop("gpt", tuner.JudgeLoop{Budget: 10, Target: 0.9, Leading: 5}, nil, runs.NewRedactor()); !errors.Is(err, ErrJudgeSpec) {
		t.Errorf("bad spec: err = %v, want ErrJudgeSpec", err)
	}
}
