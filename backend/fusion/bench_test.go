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

// benchVariants are the ways to fuse one query's prepared lists: "prepared"
// is FuseInto (the full ranking), "top50" FuseTopInto keeping 50,
// "units_top50" RankInto (no strings), "oneshot" the convenience Fuse,
// which also prepares the lists on every call.
func benchVariants(lists map[string][]fusion.Candidate) map[string]func(f *fusion.Fuser, p fusion.Params) {
	pl := fusion.Prepare(lists)
	results := make([]fusion.Result, 0, 200)
	units := make([]fusion.Ranked, 0, 200)
	return map[string]func(f *fusion.Fuser, p fusion.Params){
		"prepared":    func(f *fusion.Fuser, p fusion.Params) { results = f.FuseInto(results, pl, p, false) },
		"top50":       func(f *fusion.Fuser, p fusion.Params) { results = f.FuseTopInto(results, pl, p, false, 50) },
		"units_top50": func(f *fusion.Fuser, p fusion.Params) { units = f.RankInto(units, pl, p, false, 50) },
		"oneshot":     func(_ *fusion.Fuser, p fusion.Params) { fusion.Fuse(lists, p, false) },
	}
}

// BenchmarkFuse measures the replay hot path: 2 lists x 100 candidates
// fused in document mode, per method and variant (see benchVariants).
func BenchmarkFuse(b *testing.B) {
	variants := benchVariants(synthetic(42, 100))
	for _, v := range []string{"prepared", "top50", "units_top50", "oneshot"} {
		for _, bp := range benchParams {
			b.Run(v+"/"+bp.name, func(b *testing.B) {
				var f fusion.Fuser
				fuse := variants[v]
				b.ReportAllocs()
				for b.Loop() {
					fuse(&f, bp.p)
				}
			})
		}
	}
}

// BenchmarkFuseParallel is the replay's throughput on every core: one
// Fuser per goroutine, FuseTopInto(50) cycling through the methods over
// 2 x 100 candidates. ns/op is wall time per fused (query x config).
func BenchmarkFuseParallel(b *testing.B) {
	pl := fusion.Prepare(synthetic(42, 100))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var f fusion.Fuser
		dst := make([]fusion.Result, 0, 200)
		i := 0
		for pb.Next() {
			dst = f.FuseTopInto(dst, pl, benchParams[i%len(benchParams)].p, false, 50)
			i++
		}
	})
}

// BenchmarkPrepare measures interning one query's 2 x 100 candidates.
func BenchmarkPrepare(b *testing.B) {
	lists := synthetic(42, 100)
	b.ReportAllocs()
	for b.Loop() {
		fusion.Prepare(lists)
	}
}

// BenchmarkPrepareDocuments prepares 2 lists x 100 whole documents (each
// candidate its own document, as the engine's lists over unchunked
// corpora): one view serves both modes.
func BenchmarkPrepareDocuments(b *testing.B) {
	lists := synthetic(42, 100)
	for _, l := range lists {
		for i := range l {
			l[i].ID = l[i].DocID
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		fusion.Prepare(lists)
	}
}
