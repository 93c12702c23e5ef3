package harvest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// TestConfigCheck: each problem of a harvest's request is named by its
// flag, before any log is read.
func TestConfigCheck(t *testing.T) {
	good := Config{Logs: []string{"q.log"}, Out: "g.json", Sample: Options{Method: SampleRandom, N: 10, Seed: 1}, Clicks: ClickOptions{MinExpected: DefaultMinExpected}}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"good", func(*Config) {}, ""},
		{"no out", func(c *Config) { c.Out = "" }, "harvest: --out is required"},
		{"no logs", func(c *Config) { c.Logs = nil }, "harvest: want one or more query logs"},
		{"min expected", func(c *Config) { c.Clicks.MinExpected = 0 }, "harvest: --min-expected: want a number in (0, 1000] (got 0)"},
		{"sample", func(c *Config) { c.Sample.N = 0 }, "harvest: --n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			err := c.Check()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSummaryAndAppendImplicit: the summary counts what was read and
// added; implicit labels are counted per grade, and a second append of
// the same labels skips them.
func TestSummaryAndAppendImplicit(t *testing.T) {
	r := &Result{Log: &querylog.Log{Searches: make([]querylog.Event, 3), Files: []string{"q.log"}, Skipped: 1}, Distinct: 2, Added: 2, LastEvent: t0,
		Judgments: []Judgment{{Query: "h-1", Doc: "d1", Grade: 2, COEC: 2, Clicks: 2, Expected: 1, Impressions: 3, Confidence: 0.5}}}
	got := r.Summary(Config{Out: "g.json", Sample: Options{Method: SampleTop, N: 5, Seed: 7}})
	want := "harvest: 3 searches, 0 feedback events from 1 files (1 bad lines skipped); 2 distinct queries\nharvest: added 2 queries (sample top, n 5, seed 7) to g.json\n"
	if got != want {
		t.Errorf("summary\n%q\nwant\n%q", got, want)
	}
	url := filepath.Join(t.TempDir(), "labels.db")
	for _, want := range []string{"1 implicit labels (grade 2: 1) of dataset \"logs\"", "0 implicit labels of dataset \"logs\""} {
		line, err := r.AppendImplicit(t.Context(), url, "logs")
		if err != nil || !strings.Contains(line, want) {
			t.Errorf("line %q (%v), want %q", line, err, want)
		}
	}
}
