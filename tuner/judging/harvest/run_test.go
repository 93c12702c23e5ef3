package harvest_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
)

// TestRunRefusesEmptyLogs: a log without a search to harvest (empty,
// only skipped lines or blank texts) is refused, nothing written.
func TestRunRefusesEmptyLogs(t *testing.T) {
	for _, log := range []string{"testdata/empty.jsonl", "testdata/blank.jsonl"} {
		t.Run(filepath.Base(log), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "golden.json")
			r, err := harvest.Run(harvest.Config{Logs: []string{log}, Sample: harvest.Options{Method: harvest.SampleTop, N: 10}, Out: out})
			if !errors.Is(err, harvest.ErrNoSearches) {
				t.Fatalf("Run = %+v, %v; want ErrNoSearches", r, err)
			}
			if !strings.Contains(err.Error(), log) || !strings.Contains(err.Error(), "no golden set written") {
				t.Errorf("error %q: want the log named and what was not done", err)
			}
		})
	}
}

// TestRunCleansControlCharacters: NUL and line feeds in a logged query
// never reach the golden set; they are counted for a warning.
func TestRunCleansControlCharacters(t *testing.T) {
	out := filepath.Join(t.TempDir(), "golden.json")
	r, err := harvest.Run(harvest.Config{Logs: []string{"testdata/control.jsonl"}, Sample: harvest.Options{Method: harvest.SampleTop, N: 10}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cleaned != 1 {
		t.Errorf("Cleaned = %d, want 1", r.Cleaned)
	}
	golden := string(r.Golden)
	if strings.Contains(golden, `\u0000`) || strings.Contains(golden, `\n`) || !strings.Contains(golden, `"frozen pipe boiler"`) {
		t.Errorf("golden set holds the control characters or lacks the cleaned text:\n%s", golden)
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		changed  bool
	}{
		{"  frozen pipe ", "frozen pipe", false},
		{"frozen\x00pipe", "frozen pipe", true},
		{"frozen\n\r\tpipe\n", "frozen pipe", true},
		{"café\u0085ok", "café ok", true},
	} {
		got, changed := harvest.Clean(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
	if got := harvest.Normalize("Frozen\x00PIPE"); got != "frozen pipe" {
		t.Errorf("Normalize with a NUL = %q", got)
	}
}
