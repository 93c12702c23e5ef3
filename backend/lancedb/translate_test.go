package lancedb_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/lancedb"
)

func TestTranslate(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		want   lancedb.Trial
		errs   []string // substrings of the error, all of them
	}{
		{name: "defaults", params: map[string]any{}, want: lancedb.Trial{K: 60, Limit: 100}},
		{name: "k, limit, model", params: map[string]any{"fusion.k": 5.0, "limit": 20.0, "dense.model": "hash-32", "fusion.method": "rrf",
			"fusion.weights.bm25": 1.0, "chunk.size": 0.0}, want: lancedb.Trial{K: 5, Limit: 20, Model: "hash-32"}},
		{name: "every problem at once", params: map[string]any{"fusion.k": 0.0, "limit": 10001.0, "fusion.method": "linear",
			"fusion.weights.dense": 0.5, "depth": 50.0, "min_score": 0.1, "chunk.size": 200.0},
			errs: []string{"fusion.k: want a number > 0", "limit: want an integer from 1 to 10000", "fusion.method: LanceDB's hybrid query fuses by its RRF reranker only",
				"fusion.weights.dense: LanceDB's RRF weighs", "depth: LanceDB's hybrid query has one limit", "min_score: not a parameter the lancedb kind can set",
				"chunk.size: the lancedb kind loads whole documents"}},
		{name: "fractional limit", params: map[string]any{"limit": 2.5}, errs: []string{"limit: want an integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lancedb.Translate(tt.params)
			if len(tt.errs) == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.errs)
			}
			for _, e := range tt.errs {
				if !strings.Contains(err.Error(), e) {
					t.Errorf("error %q lacks %q", err, e)
				}
			}
		})
	}
}

func TestTrialOf(t *testing.T) {
	base := lancedb.Trial{K: 60, Limit: 50}
	got, err := lancedb.TrialOf(base, &fusion.Params{K: 3, Depth: 10, Weights: map[string]float64{"bm25": 1, "dense": 1}})
	if err != nil || got != (lancedb.Trial{K: 3, Limit: 10}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, o := range []*fusion.Params{{Method: fusion.Linear}, {Weights: map[string]float64{"dense": 2}}, {Depth: lancedb.MaxLimit + 1}} {
		if _, err := lancedb.TrialOf(base, o); err == nil {
			t.Errorf("override %+v: no error", o)
		}
	}
	if s := base.Settings(); s.Formula != fusion.FormulaLanceDB || s.Fusion.Depth != 50 || s.Fusion.K != 60 || fusion.LanceDBExpresses(s) != nil {
		t.Errorf("settings %+v", s)
	}
	if _, ok := backend.LookupParam(backend.ParamLimit); !ok {
		t.Errorf("limit is not in the parameter table")
	}
}
