package studystore_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/internal/pgtest"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// backend makes a fresh, empty database and returns its storage URL.
type backend struct {
	name  string
	fresh func(t *testing.T) string
}

// backends are the real databases every storage test runs against: a
// SQLite file and a throwaway PostgreSQL 15 (skipped when its binaries are
// absent).
func backends() []backend {
	return []backend{
		{name: "sqlite", fresh: func(t *testing.T) string {
			return "sqlite:///" + filepath.Join(t.TempDir(), "study.db")
		}},
		{name: "postgres", fresh: func(t *testing.T) string {
			return pgtest.Start(t).NewDatabase(t)
		}},
	}
}

// fanOut runs fn(0..n-1) concurrently and fails t with their errors.
func fanOut(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
	}
}

func open(t *testing.T, url string) *studystore.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := studystore.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open(%q): %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestOpenConcurrentlyIsIdempotent opens one fresh database from several
// workers at once, twice over, and creates one study from all of them.
func TestOpenConcurrentlyIsIdempotent(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			const workers = 4
			ids := make([]int, workers*2)
			fanOut(t, workers*2, func(i int) error {
				s, err := studystore.Open(context.Background(), url)
				if err != nil {
					return err
				}
				defer s.Close()
				st, err := s.Study("shared", goptuna.StudyDirectionMaximize)
				if err != nil {
					return err
				}
				ids[i] = st.ID
				return nil
			})
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("workers got different study ids: %v", ids)
				}
			}
			s := open(t, url)
			summaries, err := s.Storage.GetAllStudySummaries()
			if err != nil {
				t.Fatal(err)
			}
			if len(summaries) != 1 || summaries[0].Direction != goptuna.StudyDirectionMaximize {
				t.Fatalf("want one maximize study, got %+v", summaries)
			}
			if _, err := s.Study("shared", goptuna.StudyDirectionMinimize); err == nil {
				t.Fatal("loading a maximize study as minimize: want an error")
			}
		})
	}
}

// TestOpenErrors: a bad URL wraps ErrBadURL; an unreachable server does not.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := studystore.Open(ctx, "sqlite:///"+filepath.Join(t.TempDir(), "missing", "x.db"))
	if !errors.Is(err, studystore.ErrBadURL) {
		t.Errorf("missing directory: err = %v, want ErrBadURL", err)
	}
	_, err = studystore.Open(ctx, "ftp://x/y")
	if !errors.Is(err, studystore.ErrBadURL) {
		t.Errorf("bad scheme: err = %v, want ErrBadURL", err)
	}
	// Port 1 on loopback refuses connections.
	_, err = studystore.Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if err == nil || errors.Is(err, studystore.ErrBadURL) {
		t.Errorf("unreachable server: err = %v, want a connection error", err)
	}
}

// runSampled is one worker's loop over a sampled study: claim, suggest x,
// finish with -x², until the budget is done. It returns the trial ids it ran.
func runSampled(ctx context.Context, s *studystore.Store, study string, budget int, worker string, seed int64) ([]int, error) {
	st, err := s.Study(study, goptuna.StudyDirectionMaximize, goptuna.StudyOptionSampler(goptuna.NewRandomSampler(goptuna.RandomSamplerOptionSeed(seed))))
	if err != nil {
		return nil, err
	}
	var ran []int
	for {
		c, outcome, err := s.Next(ctx, st.ID, budget, worker)
		if err != nil {
			return ran, err
		}
		switch outcome {
		case studystore.Done:
			return ran, nil
		case studystore.Busy:
			time.Sleep(10 * time.Millisecond)
			continue
		}
		tr := goptuna.Trial{Study: st, ID: c.TrialID}
		x, err := tr.SuggestFloat("x", -1, 1)
		if err != nil {
			return ran, fmt.Errorf("suggest: %w", err)
		}
		rec := fmt.Appendf(nil, `{"trial":%d,"x":%v}`, c.Number, x)
		if err := s.Finish(ctx, c.TrialID, "COMPLETE", -x*x, worker, rec); err != nil {
			return ran, err
		}
		ran = append(ran, c.TrialID)
	}
}

// checkComplete asserts the study holds exactly want COMPLETE trials,
// numbered 0..want-1 among all trials, and that ran lists each once.
func checkComplete(t *testing.T, s *studystore.Store, study string, want int, ran []int) {
	t.Helper()
	st, err := s.Study(study, goptuna.StudyDirectionMaximize)
	if err != nil {
		t.Fatal(err)
	}
	trials, err := st.GetTrials()
	if err != nil {
		t.Fatal(err)
	}
	complete := map[int]bool{}
	numbers := map[int]bool{}
	for _, tr := range trials {
		if numbers[tr.Number] {
			t.Errorf("trial number %d used twice", tr.Number)
		}
		numbers[tr.Number] = true
		if tr.State == goptuna.TrialStateComplete {
			complete[tr.ID] = true
		}
	}
	if len(complete) != want {
		t.Errorf("%d COMPLETE trials, want %d", len(complete), want)
	}
	seen := map[int]bool{}
	for _, id := range ran {
		if seen[id] {
			t.Errorf("trial %d ran twice", id)
		}
		seen[id] = true
		if !complete[id] {
			t.Errorf("trial %d ran but is not COMPLETE", id)
		}
	}
	if len(seen) != want {
		t.Errorf("workers ran %d trials, want %d", len(seen), want)
	}
	recs, err := s.Records(context.Background(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != want {
		t.Errorf("%d records, want %d", len(recs), want)
	}
	for i, r := range recs {
		if i > 0 && r.Number <= recs[i-1].Number {
			t.Errorf("records out of trial order: %d after %d", r.Number, recs[i-1].Number)
		}
		if !complete[r.TrialID] || r.Worker == "" || !strings.HasPrefix(string(r.JSON), fmt.Sprintf(`{"trial":%d,`, r.Number)) {
			t.Errorf("record %+v does not match its trial", r)
		}
	}
}

// TestNextSharesBudgetAcrossWorkers: four workers, each with its own
// connection pool, share a 20-trial sampled study; none runs a trial twice
// and the study ends with exactly 20.
func TestNextSharesBudgetAcrossWorkers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			const workers, budget = 4, 20
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var mu sync.Mutex
			var all []int
			fanOut(t, workers, func(w int) error {
				s, err := studystore.Open(ctx, url)
				if err != nil {
					return err
				}
				defer s.Close()
				ran, err := runSampled(ctx, s, "budget", budget, fmt.Sprintf("w%d", w), int64(w))
				mu.Lock()
				all = append(all, ran...)
				mu.Unlock()
				return err
			})
			checkComplete(t, open(t, url), "budget", budget, all)
		})
	}
}

// TestQueuedTrialsClaimedOnce: 24 queued trials (goptuna's EnqueueTrial, as
// for grid and named variants) claimed by four workers at once: each runs
// exactly once, with its queued parameter.
func TestQueuedTrialsClaimedOnce(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			url := b.fresh(t)
			const workers, n = 4, 24
			s := open(t, url)
			st, err := s.Study("queue", goptuna.StudyDirectionMaximize)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if err := st.EnqueueTrial(map[string]float64{"x": float64(i)}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var mu sync.Mutex
			got := map[float64][]string{}
			fanOut(t, workers, func(w int) error {
				ws, err := studystore.Open(ctx, url)
				if err != nil {
					return err
				}
				defer ws.Close()
				wst, err := ws.Study("queue", goptuna.StudyDirectionMaximize)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("w%d", w)
				for {
					c, outcome, err := ws.Next(ctx, wst.ID, n, name)
					if err != nil {
						return err
					}
					if outcome == studystore.Done {
						return nil
					}
					if outcome == studystore.Busy {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					if !c.Queued {
						return fmt.Errorf("trial %d was created, want only queued trials", c.TrialID)
					}
					tr := goptuna.Trial{Study: wst, ID: c.TrialID}
					x, err := tr.SuggestFloat("x", 0, n)
					if err != nil {
						return err
					}
					mu.Lock()
					got[x] = append(got[x], name)
					mu.Unlock()
					if err := ws.Finish(ctx, c.TrialID, "COMPLETE", x, "test", nil); err != nil {
						return err
					}
				}
			})
			keys := make([]float64, 0, len(got))
			for x, who := range got {
				keys = append(keys, x)
				if len(who) != 1 {
					t.Errorf("queued x=%v ran %d times (%v)", x, len(who), who)
				}
			}
			sort.Float64s(keys)
			if len(keys) != n || keys[0] != 0 || keys[n-1] != n-1 {
				t.Errorf("ran queued values %v, want 0..%d once each", keys, n-1)
			}
		})
	}
}

// TestStaleSampledTrialFreesItsSlot: a sampled trial whose worker stopped
// beating is failed without a copy (the sampler proposes anew), its budget
// slot goes to the next worker, and its late finish is refused.
func TestStaleSampledTrialFreesItsSlot(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.fresh(t))
			st, err := s.Study("slot", goptuna.StudyDirectionMaximize)
			if err != nil {
				t.Fatal(err)
			}
			ghost, outcome, err := s.Next(ctx, st.ID, 1, "ghost")
			if err != nil || outcome != studystore.Claimed || ghost.Queued {
				t.Fatalf("first claim: %+v %s %v", ghost, outcome, err)
			}
			if _, outcome, err := s.Next(ctx, st.ID, 1, "other"); err != nil || outcome != studystore.Busy {
				t.Fatalf("budget 1 taken by a running trial: outcome %s, %v; want busy", outcome, err)
			}
			timeout := time.Minute
			if r, err := s.ReapStale(ctx, st.ID, timeout, time.Now()); err != nil || len(r) != 0 {
				t.Fatalf("fresh trial reaped: %v %v", r, err)
			}
			r, err := s.ReapStale(ctx, st.ID, timeout, time.Now().Add(2*timeout))
			if err != nil || len(r) != 1 || r[0].TrialID != ghost.TrialID || r[0].Requeued != 0 {
				t.Fatalf("reaped %+v, %v; want trial %d, not requeued", r, err, ghost.TrialID)
			}
			if err := s.Beat(ctx, ghost.TrialID, "ghost"); !errors.Is(err, studystore.ErrTrialLost) {
				t.Fatalf("beat after reaping: %v, want ErrTrialLost", err)
			}
			c, outcome, err := s.Next(ctx, st.ID, 1, "other")
			if err != nil || outcome != studystore.Claimed || c.Number != 1 {
				t.Fatalf("after reaping: %+v %s %v; want a new trial numbered 1", c, outcome, err)
			}
			if err := s.Finish(ctx, c.TrialID, "COMPLETE", 0.5, "test", nil); err != nil {
				t.Fatal(err)
			}
			if _, outcome, err := s.Next(ctx, st.ID, 1, "other"); err != nil || outcome != studystore.Done {
				t.Fatalf("budget met: outcome %s, %v; want done", outcome, err)
			}
		})
	}
}

// TestEnsureStudyAttr: the first worker sets the attribute, later ones must
// agree with it.
func TestEnsureStudyAttr(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.fresh(t))
			st, err := s.Study("attrs", goptuna.StudyDirectionMaximize)
			if err != nil {
				t.Fatal(err)
			}
			fanOut(t, 4, func(int) error { return s.EnsureStudyAttr(ctx, st.ID, "fusiontune:primary", "NDCG@10") })
			err = s.EnsureStudyAttr(ctx, st.ID, "fusiontune:primary", "ERR@10")
			if !errors.Is(err, studystore.ErrStudyMismatch) || !strings.Contains(err.Error(), `"NDCG@10" in the study, "ERR@10" here`) {
				t.Fatalf("disagreeing worker: %v", err)
			}
			if id, err := s.StudyID(ctx, "attrs"); err != nil || id != st.ID {
				t.Fatalf("StudyID = %d, %v; want %d", id, err, st.ID)
			}
			if _, err := s.StudyID(ctx, "nope"); !errors.Is(err, studystore.ErrNoStudy) {
				t.Fatalf("StudyID of a missing study: %v, want ErrNoStudy", err)
			}
		})
	}
}

// TestEnqueueOnceFromManyWorkers: workers starting together fill the queue
// once; a worker with another experiment file is refused; claims carry the
// spec; an abandoned queued trial goes back in the queue.
func TestEnqueueOnceFromManyWorkers(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.fresh(t))
			st, err := s.Study("fixed", goptuna.StudyDirectionMaximize)
			if err != nil {
				t.Fatal(err)
			}
			specs := []string{`{"name":"baseline"}`, `{"name":"k=10"}`}
			var mu sync.Mutex
			fills := 0
			fanOut(t, 4, func(int) error {
				filled, err := s.EnqueueOnce(ctx, st.ID, specs)
				mu.Lock()
				defer mu.Unlock()
				if filled {
					fills++
				}
				return err
			})
			if fills != 1 {
				t.Fatalf("%d workers filled the queue, want 1", fills)
			}
			if _, err := s.EnqueueOnce(ctx, st.ID, specs[:1]); !errors.Is(err, studystore.ErrStudyMismatch) {
				t.Fatalf("other specs: %v, want ErrStudyMismatch", err)
			}
			c, outcome, err := s.Next(ctx, st.ID, 2, "w")
			if err != nil || outcome != studystore.Claimed || c.Spec != specs[0] || c.Number != 0 {
				t.Fatalf("first claim %+v %s %v; want the baseline spec, number 0", c, outcome, err)
			}
			if err := s.Abandon(ctx, c.TrialID, "w", "interrupted"); err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				c, outcome, err := s.Next(ctx, st.ID, 2, "w")
				if err != nil {
					t.Fatal(err)
				}
				if outcome != studystore.Claimed {
					break
				}
				got = append(got, c.Spec)
				if err := s.Finish(ctx, c.TrialID, "COMPLETE", 1, "w", nil); err != nil {
					t.Fatal(err)
				}
			}
			if strings.Join(got, " ") != specs[1]+" "+specs[0] {
				t.Fatalf("ran %v after abandoning the baseline, want k=10 then the requeued baseline", got)
			}
		})
	}
}
