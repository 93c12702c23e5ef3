package labels_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/pgtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" database/sql driver the store's gorm dialector uses
)

// backend makes a fresh, empty store and returns its URL.
type backend struct {
	name  string
	fresh func(t *testing.T) string
}

// backends are the real databases every store test runs against: a SQLite
// file and a throwaway PostgreSQL 15 (skipped when its binaries are absent,
// failed under CI).
func backends() []backend {
	return []backend{
		{name: "sqlite", fresh: func(t *testing.T) string { return filepath.Join(t.TempDir(), "labels.db") }},
		{name: "postgres", fresh: func(t *testing.T) string { return pgtest.Start(t).NewDatabase(t) }},
	}
}

func open(t *testing.T, url string) *labels.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := labels.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open(%q): %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

func lbl(q, d, judge, source string, grade int, at time.Duration) labels.Label {
	return labels.Label{Dataset: "demo", Query: q, Doc: d, Grade: grade, Judge: judge, Source: source, Time: t0.Add(at)}
}

// TestStore covers Append, Latest and History on every backend: the latest
// label per (query, doc, judge) wins, ties in time go to the later append,
// other datasets stay apart, and nothing is ever overwritten.
func TestStore(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			url := b.fresh(t)
			s := open(t, url)
			first := []labels.Label{
				lbl("q2", "d1", "alice", labels.SourceHuman, 1, 0),
				lbl("q1", "d9", "llm:m@abcdef12", labels.SourceLLM, 3, 0),
				lbl("q1", "d9", "alice", labels.SourceHuman, 2, 0),
				{Dataset: "other", Query: "q1", Doc: "d9", Grade: 0, Judge: "alice", Source: labels.SourceHuman, Time: t0},
			}
			if err := s.Append(ctx, first); err != nil {
				t.Fatal(err)
			}
			// A correction (newer), an older label (loses), a tie in time
			// (the later append wins).
			second := []labels.Label{
				lbl("q1", "d9", "alice", labels.SourceHuman, 0, time.Hour),
				lbl("q2", "d1", "alice", labels.SourceHuman, 3, -time.Hour),
				lbl("q1", "d9", "llm:m@abcdef12", labels.SourceLLM, 1, 0),
			}
			second[0].Rationale, second[0].Confidence = "on reflection: off topic", 0.75
			if err := s.Append(ctx, second); err != nil {
				t.Fatal(err)
			}
			// A second handle on the same database sees everything.
			got, err := open(t, url).Latest(ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"q1 d9 alice human 0 2026-11-24T11:00:00Z on reflection: off topic 0.75",
				"q1 d9 llm:m@abcdef12 llm 1 2026-11-24T10:00:00Z  0",
				"q2 d1 alice human 1 2026-11-24T10:00:00Z  0",
			}
			if g := render(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
				t.Errorf("Latest:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
			hist, err := s.History(ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 6 {
				t.Errorf("History has %d labels, want all 6 appended to demo", len(hist))
			}
			ds, err := s.Datasets(ctx)
			if err != nil || fmt.Sprint(ds) != "[demo other]" {
				t.Errorf("Datasets = %v, %v; want [demo other]", ds, err)
			}
		})
	}
}

func render(ls []labels.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s %s %s %s %d %s %s %g", l.Query, l.Doc, l.Judge, l.Source, l.Grade, l.Time.Format(time.RFC3339), l.Rationale, l.Confidence))
	}
	return out
}

// TestAppendInvalidWritesNothing: one bad label among good ones fails the
// whole append, every problem is named, and the store stays empty.
func TestAppendInvalidWritesNothing(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "labels.db"))
	ctx := context.Background()
	good := lbl("q1", "d1", "alice", labels.SourceHuman, 2, 0)
	cases := []struct {
		name string
		edit func(*labels.Label)
		want string
	}{
		{"empty query", func(l *labels.Label) { l.Query = "" }, `query "" is empty`},
		{"control char", func(l *labels.Label) { l.Doc = "d\n1" }, `doc "d\n1" holds a control character`},
		{"grade", func(l *labels.Label) { l.Grade = 101 }, "grade 101 out of range 0..100"},
		{"negative grade", func(l *labels.Label) { l.Grade = -1 }, "grade -1 out of range"},
		{"source", func(l *labels.Label) { l.Source = "oracle" }, `source "oracle" unknown`},
		{"judge", func(l *labels.Label) { l.Judge = " bob" }, "has leading or trailing space"},
		{"confidence", func(l *labels.Label) { l.Confidence = 1.5 }, "confidence 1.5 out of range"},
		{"dataset utf8", func(l *labels.Label) { l.Dataset = "d\xff" }, "is not valid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := good
			c.edit(&bad)
			err := s.Append(ctx, []labels.Label{good, bad, good})
			if err == nil || !errors.Is(err, labels.ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "label 2:") {
				t.Fatalf("Append: %v; want ErrInvalid naming label 2 and %q", err, c.want)
			}
			if got, _ := s.History(ctx, "demo"); len(got) != 0 {
				t.Fatalf("%d labels written by a failed append", len(got))
			}
		})
	}
}

// TestConcurrentAppends: several writers with their own handles on one
// database append at once; every label arrives.
func TestConcurrentAppends(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			const writers, batches, per = 4, 10, 25
			var wg sync.WaitGroup
			errs := make([]error, writers)
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := labels.Open(context.Background(), url)
					if err != nil {
						errs[w] = err
						return
					}
					defer s.Close()
					for i := range batches {
						var ls []labels.Label
						for j := range per {
							ls = append(ls, lbl(fmt.Sprintf("q%d", i), fmt.Sprintf("d%d", j), fmt.Sprintf("judge%d", w), labels.SourceHuman, j%4, 0))
						}
						if err := s.Append(context.Background(), ls); err != nil {
							errs[w] = err
							return
						}
					}
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			hist, err := open(t, url).History(context.Background(), "demo")
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != writers*batches*per {
				t.Fatalf("%d labels stored, want %d", len(hist), writers*batches*per)
			}
		})
	}
}

// TestCache: answers are found by key, a second put of a key keeps the
// first answer.
func TestCache(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.fresh(t))
			ctx := context.Background()
			k1 := labels.CacheKey("q text", "doc text", "m", "abc")
			k2 := labels.CacheKey("q text", "doc text", "m", "abd")
			if k1 == k2 || k1 == labels.CacheKey("q tex", "tdoc text", "m", "abc") {
				t.Fatal("cache keys collide")
			}
			if err := s.CachePut(ctx, []labels.CacheEntry{{Key: k1, Model: "m", PromptHash: "abc", Grade: 2, Rationale: "r"}}); err != nil {
				t.Fatal(err)
			}
			if err := s.CachePut(ctx, []labels.CacheEntry{{Key: k1, Model: "m", PromptHash: "abc", Grade: 0}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.CacheLookup(ctx, []string{k1, k2})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[k1].Grade != 2 || got[k1].Rationale != "r" {
				t.Fatalf("CacheLookup = %+v; want only k1 with its first answer", got)
			}
		})
	}
}

// TestWithdraw covers Withdraw on every backend: a withdrawn label leaves
// Latest (the judge's earlier label of the pair counts again, other
// judges' labels are untouched) but stays in History; withdrawing it again,
// or a label never stored, fails with ErrNotStored; a store reopened keeps
// the withdrawal.
func TestWithdraw(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			url := b.fresh(t)
			s := open(t, url)
			earlier, later := lbl("q1", "d1", "ada", labels.SourceHuman, 1, 0), lbl("q1", "d1", "ada", labels.SourceHuman, 3, time.Minute)
			other, only := lbl("q1", "d1", "bob", labels.SourceHuman, 2, time.Minute), lbl("q2", "d2", "ada", labels.SourceHuman, 0, time.Minute)
			if err := s.Append(ctx, []labels.Label{earlier, later, other, only}); err != nil {
				t.Fatal(err)
			}
			for _, l := range []labels.Label{later, only} {
				if err := s.Withdraw(ctx, l); err != nil {
					t.Fatalf("Withdraw(%+v): %v", l, err)
				}
			}
			for _, l := range []labels.Label{later, lbl("q9", "d9", "ada", labels.SourceHuman, 1, 0)} {
				if err := s.Withdraw(ctx, l); !errors.Is(err, labels.ErrNotStored) {
					t.Errorf("Withdraw(%+v) = %v, want ErrNotStored", l, err)
				}
			}
			s2 := open(t, url)
			latest, err := s2.Latest(ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(render(latest), "; "), strings.Join(render([]labels.Label{earlier, other}), "; "); got != want {
				t.Errorf("Latest after withdrawals:\n got %s\nwant %s", got, want)
			}
			hist, err := s2.History(ctx, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Join(render(hist), "; "), strings.Join(render([]labels.Label{earlier, later, other, only}), "; "); got != want {
				t.Errorf("History after withdrawals:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestOpenAddsWithdrawsColumn: a SQLite store made before Withdraw (no
// withdraws column) gains the column when opened, keeps its labels, and
// can withdraw them.
func TestOpenAddsWithdrawsColumn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "labels.db")
	old := lbl("q1", "d1", "ada", labels.SourceHuman, 2, 0)
	s := open(t, path)
	if err := s.Append(ctx, []labels.Label{old}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE fusiontune_labels DROP COLUMN withdraws`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s = open(t, path)
	if err := s.Withdraw(ctx, old); err != nil {
		t.Fatalf("Withdraw on a store made before it: %v", err)
	}
	if ls, err := s.Latest(ctx, "demo"); err != nil || len(ls) != 0 {
		t.Errorf("Latest after the withdrawal: %v, %v; want none", ls, err)
	}
	if ls, err := s.History(ctx, "demo"); err != nil || len(ls) != 1 {
		t.Errorf("History after the withdrawal: %v, %v; want the label", ls, err)
	}
}
