package labels_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// TestSelectAndWrite reads a real SQLite store back as `tune judge labels`
// does: latest or all, one judge or every one, as JSONL or qrels.
func TestSelectAndWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "labels.db")
	if !labels.Absent(path) {
		t.Fatalf("Absent(%q) = false before the store exists", path)
	}
	s := open(t, path)
	if labels.Absent(path) || labels.Absent("postgres://u@127.0.0.1:1/x") || labels.Absent("") {
		t.Fatal("Absent: true for an existing file, a postgres URL or a bad URL")
	}
	if err := s.Append(ctx, []labels.Label{
		lbl("q1", "d1", "alice", labels.SourceHuman, 1, 0),
		lbl("q1", "d1", "alice", labels.SourceHuman, 2, time.Hour),
		lbl("q1", "d1", "llm:m@abcdef12", labels.SourceLLM, 0, 0),
		lbl("q2", "d3", "llm:m@abcdef12", labels.SourceLLM, 1, 0),
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, judge, format string
		all                 bool
		want                string
	}{
		{name: "latest qrels, human first", format: labels.FormatQrels, want: "q1 0 d1 2\nq2 0 d3 1\n"},
		{name: "one judge's qrels", judge: "llm:m@abcdef12", format: labels.FormatQrels, want: "q1 0 d1 0\nq2 0 d3 1\n"},
		{name: "history of one judge", judge: "alice", all: true, format: labels.FormatJSONL, want: `"grade":1,` + "\n" + `"grade":2,`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := s.Select(ctx, "demo", tc.all, tc.judge)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := labels.Write(&b, ls, tc.format); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if tc.format == labels.FormatJSONL {
				var grades []string
				for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
					i := strings.Index(line, `"grade":`)
					grades = append(grades, line[i:i+len(`"grade":1,`)])
				}
				got = strings.Join(grades, "\n")
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	if err := labels.Write(&bytes.Buffer{}, nil, "csv"); err == nil {
		t.Error("Write in format csv: no error")
	}
}
