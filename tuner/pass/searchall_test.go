package pass_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/trec"
)

// cannedSearcher answers each query text with its canned hits; "fail"
// fails.
type cannedSearcher map[string][]backend.Hit

func (c cannedSearcher) Ready(context.Context) error { return nil }

func (c cannedSearcher) Search(_ context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	if req.Query == "fail" {
		return backend.SearchResponse{}, errors.New("backend down")
	}
	hits := c[req.Query]
	if len(hits) > req.K {
		hits = hits[:req.K]
	}
	return backend.SearchResponse{Hits: hits}, nil
}

func TestSearchAll(t *testing.T) {
	s := cannedSearcher{
		"boiler": {{DocID: "d1", ChunkID: "d1#0", Score: 3}, {DocID: "d2", Score: 2}, {DocID: "d1", ChunkID: "d1#1", Score: 1}},
		"none":   nil,
	}
	queries := []experiments.Query{{ID: "q1", Text: "boiler"}, {ID: "q2", Text: "none"}}
	run, err := pass.SearchAll(context.Background(), s, queries, 10, "mytag")
	if err != nil {
		t.Fatal(err)
	}
	// d1's second chunk is dropped; q2 without hits is left out.
	want := trec.Run{Tag: "mytag", Queries: map[string][]trec.Result{"q1": {{DocNo: "d1", Score: 3}, {DocNo: "d2", Score: 2}}}}
	if !reflect.DeepEqual(run, want) {
		t.Errorf("got %+v\nwant %+v", run, want)
	}
	queries = append(queries, experiments.Query{ID: "q3", Text: "fail"})
	if _, err := pass.SearchAll(context.Background(), s, queries, 10, "mytag"); err == nil || !strings.Contains(err.Error(), `search: query "q3": backend down`) {
		t.Errorf("failed query: %v", err)
	}
}
