package tuner_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

var samplers = []string{sampler.Random, sampler.TPE, sampler.CMAES}

// runStudy runs a fresh study on a fresh landscape and returns its trials.
func runStudy(t *testing.T, name string, seed int64, budget int, pruning experiments.Pruning) ([]runs.TrialRecord, *landscape) {
	t.Helper()
	l := newLandscape()
	o := searchOptions(t, l, newRun(t, t.TempDir()), nil)
	res, err := tuner.Search(context.Background(), o, sampler.Options{
		Space: testSpace(), Sampler: name, Seed: seed, Trials: budget, Pruning: pruning,
	})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	return res.Trials, l
}

func TestSameSeedSameTrials(t *testing.T) {
	for _, s := range samplers {
		t.Run(s, func(t *testing.T) {
			a, _ := runStudy(t, s, 7, 14, experiments.Pruning{})
			b, _ := runStudy(t, s, 7, 14, experiments.Pruning{})
			c, _ := runStudy(t, s, 8, 14, experiments.Pruning{})
			if len(a) != 14 {
				t.Fatalf("%d trials, want 14", len(a))
			}
			if !reflect.DeepEqual(sequence(a), sequence(b)) {
				t.Errorf("same seed, different trials:\n%s\nvs\n%s", strings.Join(sequence(a), "\n"), strings.Join(sequence(b), "\n"))
			}
			if reflect.DeepEqual(sequence(a), sequence(c)) {
				t.Errorf("seeds 7 and 8 gave the same trials")
			}
			for i, tr := range a {
				if tr.Sampler != s || tr.Status != runs.StatusOK || tr.Index != i {
					t.Errorf("trial %d: sampler %q status %q index %d", i, tr.Sampler, tr.Status, tr.Index)
				}
			}
		})
	}
}

// TestPruningKeepsEventualBest runs the same random proposals with and
// without pruning on a landscape where every query orders configurations
// alike (a category shifts all of them equally), so that partial scores
// rank trials as their full scores do: pruning must save queries, record
// partial scores, and keep the best trial, which must win.
func TestPruningKeepsEventualBest(t *testing.T) {
	pruning := experiments.Pruning{Enabled: true, Fraction: 0.25, ReductionFactor: 2}
	full, lFull := runStudy(t, sampler.Random, 11, 24, experiments.Pruning{})
	pruned, lPruned := runStudy(t, sampler.Random, 11, 24, pruning)
	best := runs.NewLeaderboard("", nil, full).Trials[0]
	lb := runs.NewLeaderboard("", nil, pruned)
	if lb.Trials[0].Name != best.Name || lb.Trials[0].Primary != best.Primary {
		t.Errorf("pruned study's winner %s (%.4f), want the unpruned winner %s (%.4f)", lb.Trials[0].Name, lb.Trials[0].Primary, best.Name, best.Primary)
	}
	nPruned := 0
	for i, tr := range pruned {
		if experiments.Params(tr.Params).String() != experiments.Params(full[i].Params).String() {
			t.Fatalf("trial %d: params differ with pruning (random proposals ignore scores)", i)
		}
		switch tr.Status {
		case runs.StatusPruned:
			nPruned++
			if tr.Name == best.Name {
				t.Errorf("the eventual best %s was pruned", best.Name)
			}
			if !(tr.Fraction > 0 && tr.Fraction < 1) || len(tr.Rungs) == 0 {
				t.Errorf("%s: pruned with fraction %v, rungs %v", tr.Name, tr.Fraction, tr.Rungs)
			}
			last := tr.Rungs[len(tr.Rungs)-1]
			if last.Primary != tr.Primary || last.Fraction != tr.Fraction || last.Queries != tr.Queries {
				t.Errorf("%s: record %v/%v/%d, last rung %+v", tr.Name, tr.Primary, tr.Fraction, tr.Queries, last)
			}
		case runs.StatusOK:
			if tr.Fraction != 1 || math.Abs(tr.Primary-full[i].Primary) > 1e-12 {
				t.Errorf("%s: completed with fraction %v, primary %v (unpruned %v)", tr.Name, tr.Fraction, tr.Primary, full[i].Primary)
			}
		default:
			t.Errorf("%s: status %s", tr.Name, tr.Status)
		}
	}
	_, sFull := lFull.counts()
	_, sPruned := lPruned.counts()
	if nPruned == 0 || sPruned >= sFull {
		t.Errorf("%d trials pruned, %d searches with pruning vs %d without", nPruned, sPruned, sFull)
	}
	t.Logf("%d of %d trials pruned; %d searches instead of %d", nPruned, len(pruned), sPruned, sFull)
}

// TestPrunedPartialScores checks a pruned trial's record against its
// per-query results: the partial primary is the mean over the queries it
// ran, stratified by category.
func TestPrunedPartialScores(t *testing.T) {
	l := newLandscape()
	run := newRun(t, t.TempDir())
	o := searchOptions(t, l, run, nil)
	res, err := tuner.Search(context.Background(), o, sampler.Options{Space: testSpace(), Sampler: sampler.TPE, Seed: 5, Trials: 16,
		Pruning: experiments.Pruning{Enabled: true, Fraction: 0.25, ReductionFactor: 2}})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tr := range res.Trials {
		if tr.Status != runs.StatusPruned {
			continue
		}
		qs, err := run.QueryResults(tr.Index)
		if err != nil {
			t.Fatal(err)
		}
		sum, cats := 0.0, map[string]int{}
		for _, q := range qs {
			sum += q.Primary
			cats[q.Category]++
		}
		if len(qs) != tr.Queries || math.Abs(sum/float64(len(qs))-tr.Primary) > 1e-12 {
			t.Errorf("%s: %d query results with mean %v; record says %d queries, primary %v", tr.Name, len(qs), sum/float64(len(qs)), tr.Queries, tr.Primary)
		}
		// 36 queries, 12 in b: a quarter is 3 of b and 6 of a.
		if tr.Fraction == 0.25 && (cats["a"] != 6 || cats["b"] != 3) {
			t.Errorf("%s: first rung not stratified: %v", tr.Name, cats)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no trial was pruned")
	}
}

// TestResumeDoesNotRedo interrupts a study after 6 of its trials, resumes
// it, and checks that the recorded trials were not searched again and that
// the whole sequence equals an uninterrupted run's.
func TestResumeDoesNotRedo(t *testing.T) {
	for _, s := range samplers {
		t.Run(s, func(t *testing.T) { testResume(t, s) })
	}
}

func testResume(t *testing.T, name string) {
	pruning := experiments.Pruning{Enabled: true, Fraction: 0.25, ReductionFactor: 2}
	fixed := []experiments.TrialSpec{{Name: "baseline", Baseline: true, Params: experiments.Params{"fusion.k": 60.0, "fusion.weights.bm25": 0.5, "fusion.method": "rrf"}}}
	so := sampler.Options{Space: testSpace(), Sampler: name, Seed: 9, Trials: 12, Pruning: pruning}

	whole := newRun(t, t.TempDir())
	want, err := tuner.Search(context.Background(), searchOptions(t, newLandscape(), whole, fixed), so)
	if err != nil {
		t.Fatal(err)
	}

	run := newRun(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := newLandscape()
	o := searchOptions(t, first, run, fixed)
	o.Progress = stopAfter{n: 7, cancel: cancel}
	if _, err := tuner.Search(ctx, o, so); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted search: %v, want context.Canceled", err)
	}
	done, err := run.Trials()
	if err != nil || len(done) != 7 {
		t.Fatalf("%d trials recorded before the interruption (%v), want 7", len(done), err)
	}

	second := newLandscape()
	res, err := tuner.Search(context.Background(), searchOptions(t, second, run, fixed), so)
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 7 {
		t.Errorf("resume skipped %d trials, want 7", res.Skipped)
	}
	_, searches := second.counts()
	_, wholeSearches := newLandscapeCounts(t, whole)
	if searches >= wholeSearches {
		t.Errorf("resumed study ran %d searches, an uninterrupted one %d: recorded trials were redone", searches, wholeSearches)
	}
	got, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sequence(got), sequence(want.Trials)) {
		t.Errorf("resumed sequence differs from an uninterrupted run:\n%s\nvs\n%s", strings.Join(sequence(got), "\n"), strings.Join(sequence(want.Trials), "\n"))
	}
}

// newLandscapeCounts counts the searches a run's recorded trials made (one
// per recorded query result).
func newLandscapeCounts(t *testing.T, run *runs.Run) (int, int) {
	t.Helper()
	trials, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tr := range trials {
		qs, err := run.QueryResults(tr.Index)
		if err != nil {
			t.Fatal(err)
		}
		n += len(qs)
	}
	return len(trials), n
}

// stopAfter cancels the search once n trials are done.
type stopAfter struct {
	n      int
	cancel context.CancelFunc
}

func (s stopAfter) TrialStarted(int, int, string) {}
func (s stopAfter) QueryDone(int, int)            {}
func (s stopAfter) TrialDone(i, _ int, _ runs.TrialRecord, _ time.Duration) {
	if i >= s.n {
		s.cancel()
	}
}

// TestSharedStorage runs two workers on one goptuna storage, the second
// joining the first's study by name: the study holds both workers' trials,
// and the second worker's sampler sees the first's observations.
func TestSharedStorage(t *testing.T) {
	storage := goptuna.NewInMemoryStorage()
	worker := func(seed int64, join bool) *tuner.Result {
		res, err := tuner.Search(context.Background(), searchOptions(t, newLandscape(), newRun(t, t.TempDir()), nil), sampler.Options{
			Space: testSpace(), Sampler: sampler.TPE, Seed: seed, Trials: 6,
			Storage: storage, StudyName: "shared", LoadIfExists: join,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	worker(1, false)
	worker(2, true)
	study, err := sampler.New(sampler.Options{Space: testSpace(), Trials: 1, Storage: storage, StudyName: "shared", LoadIfExists: true})
	if err != nil {
		t.Fatal(err)
	}
	trials, err := study.Goptuna().GetTrials()
	if err != nil {
		t.Fatal(err)
	}
	complete := 0
	for _, tr := range trials {
		if tr.State == goptuna.TrialStateComplete {
			complete++
		}
	}
	if complete != 12 {
		t.Errorf("shared study holds %d complete trials, want 12", complete)
	}
	p, err := study.Ask()
	if err != nil {
		t.Fatal(err)
	}
	if p.Number != 12 {
		t.Errorf("next trial number %d, want 12", p.Number)
	}
}
