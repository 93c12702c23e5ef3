package rerank_test

import (
	"math"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/backend/rerank"
)

func TestRerank(t *testing.T) {
	tests := []struct {
		name       string
		fused, rr  []float64
		weight     float64
		wantOrder  []int
		wantScores []float64
	}{
		{
			// window of 3: fused normalized 1, 0.5, 0; reranker
			// normalized 0, 1, 0.5. weight 0.5: 0.5, 0.75, 0.25. The
			// tail (fused 0) on the window's scale: (0-1)/(3-1) = -0.5.
			name: "half blend", fused: []float64{3, 2, 1, 0}, rr: []float64{0.1, 0.9, 0.5}, weight: 0.5,
			wantOrder: []int{1, 0, 2, 3}, wantScores: []float64{0.75, 0.5, 0.25, -0.5},
		},
		{
			name: "weight 0 keeps the fused order", fused: []float64{3, 2, 1}, rr: []float64{0, 1, 2}, weight: 0,
			wantOrder: []int{0, 1, 2}, wantScores: []float64{1, 0.5, 0},
		},
		{
			name: "weight 1 is the reranker's order", fused: []float64{3, 2, 1}, rr: []float64{0, 1, 2}, weight: 1,
			wantOrder: []int{2, 1, 0}, wantScores: []float64{1, 0.5, 0},
		},
		{
			// equal reranker scores normalize to 1: ties keep the fused order.
			name: "ties by fused position", fused: []float64{5, 5, 1}, rr: []float64{0.3, 0.3}, weight: 1,
			wantOrder: []int{0, 1, 2}, wantScores: []float64{1, 1, -4},
		},
		{
			name: "empty window", fused: []float64{2, 1}, rr: nil, weight: 1,
			wantOrder: []int{0, 1}, wantScores: []float64{2, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, scores, err := rerank.Rerank(tt.fused, tt.rr, tt.weight)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(order, tt.wantOrder) {
				t.Errorf("order = %v, want %v", order, tt.wantOrder)
			}
			for i := range scores {
				if math.Abs(scores[i]-tt.wantScores[i]) > 1e-12 {
					t.Errorf("scores = %v, want %v", scores, tt.wantScores)
					break
				}
			}
		})
	}
}

func TestRerankErrors(t *testing.T) {
	if _, _, err := rerank.Rerank([]float64{1}, []float64{1, 2}, 0.5); err == nil {
		t.Error("more reranker scores than hits: want an error")
	}
	if _, _, err := rerank.Rerank([]float64{1}, []float64{1}, 1.5); err == nil {
		t.Error("weight 1.5: want an error")
	}
}

func TestNormalize(t *testing.T) {
	got := rerank.Normalize([]float64{2, 4, 3})
	if !slices.Equal(got, []float64{0, 1, 0.5}) {
		t.Errorf("Normalize = %v", got)
	}
	if got := rerank.Normalize([]float64{7, 7}); !slices.Equal(got, []float64{1, 1}) {
		t.Errorf("Normalize(equal) = %v", got)
	}
}
