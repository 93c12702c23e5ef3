package fusion_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

var benchParams = []struct {
	name string
	p    fusion.Params
}{
	{"rrf", fusion.Params{Method: fusion.RRF}},
	{"linear", fusion.Params{Method: fusion.Linear, Weights: map[string]float64{"bm25": 0.4, "dense": 0.6}}},
	{"linear_zscore", fusion.Params{Method: fusion.Linear, Normalization: fusion.ZScore}},
	{"combsum", fusion.Params{Method: fusion.CombSUM}},
	{"combmnz", fusion.Params{Method: fusion.CombMNZ}},
}

// BenchmarkFuse measures the replay hot path: 2 lists x 100 candidates
// fused in document mode. "prepared" reuses one Fuser and one Prepared (the
// tuner's replay: prepare a query once, fuse it under many configs);
// "top50" keeps the 50 best; "units_top50" is RankInto (no strings); "oneshot" is the convenience Fuse, which
// prepares the lists on every call.
func BenchmarkFuse(b *testing.B) {
	lists := synthetic(42, 100)
	pl := fusion.Prepare(lists)
	for _, bp := range benchParams {
		b.Run("prepared/"+bp.name, func(b *testing.B) {
			var f fusion.Fuser
			dst := make([]fusion.Result, 0, 200)
			b.ReportAllocs()
			for b.Loop() {
				dst = f.FuseInto(dst, pl, bp.p, false)
			}
		})
		b.Run("top50/"+bp.name, func(b *testing.B) {
			var f fusion.Fuser
			dst := make([]fusion.Result, 0, 200)
			b.ReportAllocs()
			for b.Loop() {
				dst = f.FuseTopInto(dst, pl, bp.p, false, 50)
			}
		})
		b.Run("units_top50/"+bp.name, func(b *testing.B) {
			var f fusion.Fuser
			dst := make([]fusion.Ranked, 0, 200)
			b.ReportAllocs()
			for b.Loop() {
				dst = f.RankInto(dst, pl, bp.p, false, 50)
			}
		})
		b.Run("oneshot/"+bp.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fusion.Fuse(lists, bp.p, false)
			}
		})
	}
}

// BenchmarkPrepare measures interning one query's 2 x 100 candidates.
func BenchmarkPrepare(b *testing.B) {
	lists := synthetic(42, 100)
	b.ReportAllocs()
	for b.Loop() {
		fusion.Prepare(lists)
	}
}
