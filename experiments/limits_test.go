package experiments_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/userfile"
)

// TestGoldenSetLimits: a golden set over one of its limits, or a path that
// is no regular file, is refused at once, naming the limit's setting.
func TestGoldenSetLimits(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		opts   experiments.LoadOptions
		want   []string
		target error
	}{
		{name: "device", path: "/dev/zero", want: []string{"/dev/zero", "a character device"}, target: userfile.ErrNotRegular},
		{name: "bytes", path: "testdata/golden/basic.good.json", opts: experiments.LoadOptions{Limits: experiments.Limits{MaxBytes: 100}},
			want: []string{"984 bytes, more than 100", "dataset.max_bytes"}, target: userfile.ErrTooLarge},
		{name: "queries", path: "testdata/golden/basic.good.json", opts: experiments.LoadOptions{Limits: experiments.Limits{MaxQueries: 1}},
			want: []string{"3 queries, more than 1", "dataset.max_queries"}},
		{name: "query text", path: "testdata/golden/basic.good.json", opts: experiments.LoadOptions{Limits: experiments.Limits{MaxLineBytes: 10}},
			want: []string{"basic.good.json:", "a query text of", "more than 10", "dataset.max_line_bytes"}},
		{name: "topics line", path: "testdata/golden/topics.good.jsonl",
			opts: experiments.LoadOptions{Judgments: "testdata/golden/topics.good.jsonl.judgments.jsonl", Limits: experiments.Limits{MaxLineBytes: 40}},
			want: []string{"topics.good.jsonl:1: a line of 67 bytes, more than 40", "dataset.max_line_bytes"}},
		{name: "beir queries line", path: "testdata/golden/beir.good", opts: experiments.LoadOptions{Limits: experiments.Limits{MaxLineBytes: 20}},
			want: []string{"queries.jsonl:1: a line of", "more than 20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			gs, err := experiments.LoadGoldenSet(tt.path, tt.opts)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if err == nil {
				t.Fatalf("loaded %d queries; want an error", len(gs.Queries))
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("error %v does not wrap %v", err, tt.target)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
	// Within the limits the same files load.
	if _, err := experiments.LoadGoldenSet("testdata/golden/basic.good.json", experiments.LoadOptions{Limits: experiments.Limits{MaxBytes: 984, MaxQueries: 3}}); err != nil {
		t.Errorf("at its limits: %v", err)
	}
}
