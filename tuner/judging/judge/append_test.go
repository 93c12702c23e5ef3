package judge_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// scripted grades the first n pairs 1 and then fails with err (nil: none).
type scripted struct {
	n   int
	err error
}

func (s scripted) Name() string { return "scripted" }

func (s scripted) Judge(_ context.Context, pairs []judge.Pair) ([]labels.Label, error) {
	var ls []labels.Label
	for i, p := range pairs {
		if i == s.n {
			return ls, s.err
		}
		ls = append(ls, labels.Label{Dataset: "demo", Query: p.Query, Doc: p.Doc, Grade: 1, Judge: s.Name(), Source: labels.SourceLLM, Time: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	}
	return ls, nil
}

// TestJudgeInto checks what reaches a real SQLite store: everything, the
// labels judged before the budget ran out, or nothing on a failure; and
// that Todo then leaves out what is labelled.
func TestJudgeInto(t *testing.T) {
	pairs := []judge.Pair{{Query: "q1", Doc: "d1"}, {Query: "q1", Doc: "d2"}, {Query: "q2", Doc: "d1"}}
	tests := []struct {
		name   string
		j      scripted
		stored int
		spent  bool
		err    string
	}{
		{name: "all judged", j: scripted{n: 3}, stored: 3},
		{name: "budget spent keeps the judged", j: scripted{n: 2, err: fmt.Errorf("%w: 2 of 2 calls made", judge.ErrBudget)}, stored: 2, spent: true},
		{name: "failure appends nothing", j: scripted{n: 2, err: errors.New("server down")}, err: "server down\nnothing appended to "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := labels.Open(ctx, filepath.Join(t.TempDir(), "labels.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			todo, err := judge.Todo(ctx, st, "demo", pairs, tc.j)
			if err != nil || len(todo) != 3 {
				t.Fatalf("Todo on an empty store = %d pairs, %v; want 3", len(todo), err)
			}
			got, err := judge.JudgeInto(ctx, tc.j, st, todo)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("JudgeInto error %v, want one starting %q", err, tc.err)
				}
			} else if err != nil || len(got.Labels) != tc.stored || (got.Spent != nil) != tc.spent {
				t.Fatalf("JudgeInto = %d labels, spent %v, %v", len(got.Labels), got.Spent, err)
			}
			latest, err := st.Latest(ctx, "demo")
			if err != nil || len(latest) != tc.stored {
				t.Fatalf("store holds %d labels (%v), want %d", len(latest), err, tc.stored)
			}
			left, err := judge.Todo(ctx, st, "demo", pairs, tc.j)
			if err != nil || len(left) != 3-tc.stored {
				t.Fatalf("Todo after = %d pairs, %v; want %d", len(left), err, 3-tc.stored)
			}
		})
	}
	if todo, err := judge.Todo(context.Background(), nil, "demo", pairs, scripted{}); err != nil || len(todo) != 3 {
		t.Fatalf("Todo without a store = %d pairs, %v; want every pair", len(todo), err)
	}
}
