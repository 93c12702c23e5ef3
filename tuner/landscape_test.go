package tuner_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// landscape is a constructed backend for the study tests: each query has
// one relevant document ("rel-<query>"), and the rank at which a
// configuration places it grows with the distance of fusion.k from the
// query's target and of fusion.weights.bm25 from 0.3 (plus one rank for
// fusion.method linear, and offset ranks for the query's category). So the
// primary score has a known optimum and a known order.
type landscape struct {
	// target returns the query's best fusion.k.
	target func(q int) float64
	// offset returns extra ranks for every configuration on query q.
	offset func(q int) int

	mu       sync.Mutex
	applied  map[string]any
	live     map[string]any
	restarts int
	searches int
}

var (
	_ backend.Backend   = (*landscape)(nil)
	_ backend.Restarter = (*landscape)(nil)
)

func (l *landscape) Apply(_ context.Context, p map[string]any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applied = experiments.Params(p).Clone()
	return nil
}

func (l *landscape) NeedsRestart() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return experiments.Params(l.applied).String() != experiments.Params(l.live).String()
}

func (l *landscape) Restart(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live = l.applied
	l.restarts++
	return nil
}

func (l *landscape) Ready(context.Context) error { return nil }
func (l *landscape) Close() error                { return nil }

func (l *landscape) Search(_ context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	l.mu.Lock()
	p := experiments.Params(l.live)
	l.searches++
	l.mu.Unlock()
	var q int
	if _, err := fmt.Sscanf(req.Query, "query %d", &q); err != nil {
		return backend.SearchResponse{}, err
	}
	k, _ := p["fusion.k"].(float64)
	w, _ := p["fusion.weights.bm25"].(float64)
	rank := math.Abs(k-l.target(q))/8 + 10*math.Abs(w-0.3)
	if p["fusion.method"] == "linear" {
		rank++
	}
	r := int(rank) + l.offset(q)
	hits := make([]backend.Hit, 0, 30)
	for i := 0; i < 30; i++ {
		id := fmt.Sprintf("other-%d", i)
		if i == r {
			id = fmt.Sprintf("rel-%d", q)
		}
		hits = append(hits, backend.Hit{DocID: id, Score: float64(30 - i)})
	}
	return backend.SearchResponse{Hits: hits}, nil
}

func (l *landscape) counts() (restarts, searches int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.restarts, l.searches
}

// newLandscape varies the target of fusion.k by query around 52 and puts
// category "b" queries two ranks lower for every configuration.
func newLandscape() *landscape {
	return &landscape{
		target: func(q int) float64 { return 40 + float64(3*(q%9)) },
		offset: func(q int) int {
			if q%3 == 0 {
				return 2
			}
			return 0
		},
	}
}

// landscapeQueries are n queries in categories a and b.
func landscapeQueries(n int) []scoring.Query {
	qs := make([]scoring.Query, n)
	for i := range qs {
		cat := "a"
		if i%3 == 0 {
			cat = "b"
		}
		qs[i] = scoring.Query{ID: fmt.Sprintf("q%02d", i), Text: fmt.Sprintf("query %d", i), Category: cat,
			Judgments: map[string]int{fmt.Sprintf("rel-%d", i): 3}}
	}
	return qs
}

// testSpace is the search space of the study tests.
func testSpace() []experiments.SpaceParam {
	return []experiments.SpaceParam{
		{Param: "fusion.k", Type: "int", Low: 10, High: 100},
		{Param: "fusion.weights.bm25", Type: "float", Low: 0, High: 1},
		{Param: "fusion.method", Type: "categorical", Choices: []any{"rrf", "linear"}},
	}
}

// newRun creates a run directory under dir.
func newRun(t *testing.T, dir string) *runs.Run {
	t.Helper()
	store, err := runs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "test"}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// searchOptions are the tuner options of a study test on l.
func searchOptions(t *testing.T, l *landscape, run *runs.Run, fixed []experiments.TrialSpec) tuner.Options {
	t.Helper()
	sc, err := scoring.NewScorer("NDCG@10", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return tuner.Options{Trials: fixed, Queries: landscapeQueries(36), Backend: l, Scorer: sc, Run: run,
		Eval: pass.EvalOptions{Concurrency: 2}}
}

// sequence renders a run's trials as "name {params} status".
func sequence(trials []runs.TrialRecord) []string {
	out := make([]string, len(trials))
	for i, tr := range trials {
		out[i] = fmt.Sprintf("%s {%s} %s", tr.Name, experiments.Params(tr.Params).String(), tr.Status)
	}
	return out
}
