package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestSearchReusedScratchSameAnswers: a search's reused scratch (the
// dense search's buffers, the fusion scratch) carries nothing from one
// search to the next: every request, answered after others of other
// fusion methods, normalizations, depths and variants, sequentially or
// from 4 goroutines at once, gets the answer it got first.
func TestSearchReusedScratchSameAnswers(t *testing.T) {
	e := build(t, tinyConfig(t, nil))
	var reqs []backend.SearchRequest
	params := []*fusion.Params{
		nil,
		{Method: fusion.RRF, K: 1},
		{Method: fusion.Linear, Normalization: fusion.MinMax, Weights: map[string]float64{"bm25": 0.3, "dense": 0.7}},
		{Method: fusion.Linear, Normalization: fusion.ZScore},
		{Method: fusion.CombMNZ, Depth: 5},
	}
	for _, q := range append(backendtestQueries, "the", "telescope mirror bread garbage mulch") {
		for i, p := range params {
			r := backend.SearchRequest{Query: q, K: 3 + i, Fusion: p, Explain: i%2 == 0}
			if i == 1 {
				r.Variants = []fusion.Params{{Method: fusion.CombSUM, K: 1}, {Method: fusion.RRF, K: 10}}
			}
			reqs = append(reqs, r)
		}
	}
	answer := func(r backend.SearchRequest) backend.SearchResponse {
		resp, err := e.Search(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := make([]backend.SearchResponse, len(reqs))
	for i, r := range reqs {
		first[i] = answer(r)
	}
	check := func(how string, i int, got backend.SearchResponse) {
		if !reflect.DeepEqual(got, first[i]) {
			t.Errorf("%s: request %d (%q, %+v): %+v, first %+v", how, i, reqs[i].Query, reqs[i].Fusion, got, first[i])
		}
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		check("reversed", i, answer(reqs[i]))
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for n := range 3 * len(reqs) {
				i := (n*7 + w*5) % len(reqs)
				resp, err := e.Search(context.Background(), reqs[i])
				if err != nil {
					t.Error(err)
					return
				}
				check(fmt.Sprintf("goroutine %d", w), i, resp)
			}
		})
	}
	wg.Wait()
}
