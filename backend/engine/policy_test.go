package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestPolicyChoosesSettings: with fusion.policy the engine ranks a request
// without a fusion override under the arm the policy chooses (here by
// query length: BM25 alone for short queries, dense alone for long ones),
// exactly as the same settings given per request rank it.
func TestPolicyChoosesSettings(t *testing.T) {
	c, err := engine.LoadConfig("testdata/policy/engine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs("testdata/policy/policy.json"); c.Fusion.Policy != want {
		t.Errorf("fusion.policy %q, want the path resolved against the config's directory %q", c.Fusion.Policy, want)
	}
	c.CacheDir = t.TempDir()
	e := build(t, c)
	ctx := context.Background()
	tests := []struct {
		name  string
		query string
		arm   map[string]float64
	}{
		{"short query: bm25 alone", "telescope lens", map[string]float64{"bm25": 1, "dense": 0}},
		{"long query: dense alone", "why do observatories use mirrors", map[string]float64{"bm25": 0, "dense": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.Search(ctx, backend.SearchRequest{Query: tc.query, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			want, err := e.Search(ctx, backend.SearchRequest{Query: tc.query, K: 5, Fusion: &fusion.Params{Weights: tc.arm}})
			if err != nil {
				t.Fatal(err)
			}
			other := map[string]float64{"bm25": tc.arm["dense"], "dense": tc.arm["bm25"]}
			not, err := e.Search(ctx, backend.SearchRequest{Query: tc.query, K: 5, Fusion: &fusion.Params{Weights: other}})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Hits, want.Hits) {
				t.Errorf("policy hits %v, want the arm's %v", got.Hits, want.Hits)
			}
			if reflect.DeepEqual(got.Hits, not.Hits) {
				t.Errorf("both arms rank %q alike: the test cannot tell them apart", tc.query)
			}
		})
	}
	_, err = e.Search(ctx, backend.SearchRequest{Query: "lens", Fusion: &fusion.Params{Policy: "other.json"}})
	if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), "fusion.policy: set in the engine config only") {
		t.Errorf("per-request policy: error %v, want an invalid request naming fusion.policy", err)
	}
}

func TestPolicyBadFile(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   []string
	}{
		{"missing", "testdata/policy/none.json", []string{"fusion.policy: policy: open"}},
		{"unknown retriever and passage", "testdata/policy/unknown-retriever.json", []string{
			"arms[0].Fusion.weights.colbert: not an enabled retriever",
			"arms[0].Passage: true, but the config ranks passage: false"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tinyConfig(t, func(c *engine.Config) { c.Fusion.Policy = tc.policy })
			_, err := engine.New(c, engine.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
