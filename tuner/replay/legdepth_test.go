package replay_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// TestLegDepth checks the depth replay cuts lists at: Weaviate's legs go
// max(depth, k) deep, the project's engine's the depth.
func TestLegDepth(t *testing.T) {
	tests := []struct {
		formula  string
		depth, k int
		want     int
	}{
		{fusion.FormulaWeaviate, 50, 100, 100},
		{fusion.FormulaWeaviate, 100, 10, 100},
		{fusion.FormulaOwn, 50, 100, 50},
	}
	for _, tt := range tests {
		s := fusion.Settings{Formula: tt.formula, Fusion: fusion.Params{Depth: tt.depth}}
		if got := replay.LegDepth(s, tt.k).Fusion.Depth; got != tt.want {
			t.Errorf("%q depth %d k %d: %d, want %d", tt.formula, tt.depth, tt.k, got, tt.want)
		}
	}
}
