package judge_test

import (
	"errors"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// TestParseSpec: llm, file:PATH, and anything else refused.
func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		name, spec, path string
		file, bad        bool
	}{
		{"llm", "llm", "", false, false},
		{"file", "file:x.qrels", "x.qrels", true, false},
		{"file without path", "file:", "", false, true},
		{"other", "gpt", "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, file, err := judge.ParseSpec(tc.spec)
			if path != tc.path || file != tc.file || errors.Is(err, judge.ErrSpec) != tc.bad {
				t.Errorf("%q: %q, %v, %v", tc.spec, path, file, err)
			}
		})
	}
}
