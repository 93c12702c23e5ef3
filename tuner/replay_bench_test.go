package tuner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// benchGrid is the bench-replay sweep: RRF k in {10, 20, 40, 60, 80} x
// bm25 weight in {0, 0.1, ..., 1} with dense weight 1 - bm25 weight.
func benchGrid() []fusion.Settings {
	var out []fusion.Settings
	for _, k := range []float64{10, 20, 40, 60, 80} {
		for i := 0; i <= 10; i++ {
			w := float64(i) / 10
			out = append(out, fusion.Settings{Fusion: fusion.Params{
				Method: fusion.RRF, K: k, Normalization: fusion.MinMax, Depth: 100,
				Weights: map[string]float64{"bm25": w, "dense": float64(10-i) / 10},
			}})
		}
	}
	return out
}

// demoLists runs every demo query once on the in-process engine with
// explain and prepares the candidate lists (2 x 100 per query).
func demoLists(b testing.TB) ([]scoring.Query, []*fusion.Prepared) {
	qs, path := demoQueries(b)
	cfg := engine.DefaultConfig()
	cfg.Corpus.Path, cfg.Corpus.Format = path, corpus.FormatBEIR
	cfg.Dense.Model = "hash-384"
	cfg.CacheDir = filepath.Join(b.TempDir(), "cache")
	e, err := engine.New(cfg, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	pls := make([]*fusion.Prepared, len(qs))
	for i, q := range qs {
		resp, err := e.Search(context.Background(), backend.SearchRequest{Query: q.Text, K: 100, Explain: true})
		if err != nil {
			b.Fatal(err)
		}
		pls[i] = fusion.Prepare(resp.Candidates)
	}
	return qs, pls
}

// replaySetup prepares the demo queries' lists for replay.
func replaySetup(b *testing.B) (*scoring.MetricsScorer, []fusion.Settings, *tuner.ReplayCore, []*tuner.ReplayQuery) {
	qs, pls := demoLists(b)
	sc := demoScorer(b)
	core := tuner.NewReplayCore(sc, pass.DefaultDepth)
	rqs := make([]*tuner.ReplayQuery, len(qs))
	for i, q := range qs {
		rqs[i] = core.Prepare(q, pls[i])
	}
	return sc, benchGrid(), core, rqs
}

// BenchmarkReplay measures the replay's raw throughput: one op is one
// (query x config) fused from the collected lists (top 100 kept, as the
// live search returns) and scored on the default scorecard (14 metrics and
// the composite primary), on every core (one ReplayCore per goroutine).
// The pairs/s metric is what to report.
//
//	go test -run '^$' -bench Replay ./tuner
func BenchmarkReplay(b *testing.B) {
	sc, grid, _, rqs := replaySetup(b)
	pairs := len(rqs) * len(grid)
	b.Run(fmt.Sprintf("demo/%dqueries/%dconfigs", len(rqs), len(grid)), func(b *testing.B) {
		var next atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		start, cpu0 := time.Now(), tuner.ProcessCPU()
		b.RunParallel(func(pb *testing.PB) {
			c := tuner.NewReplayCore(sc, pass.DefaultDepth)
			for pb.Next() {
				n := int(next.Add(1)-1) % pairs
				c.Score(rqs[n%len(rqs)], grid[n/len(rqs)])
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pairs/s")
		// On a shared machine the wall rate understates the code: pairs
		// per CPU-second times the idle cores is what it would reach.
		b.ReportMetric(float64(b.N)/(tuner.ProcessCPU()-cpu0).Seconds(), "pairs/cpu-s")
	})
}

// BenchmarkReplayTrial is one replayed trial end to end minus the disk
// sync: fuse, score and build the per-query records of every demo query,
// then encode them as a TrialBatch writes them.
func BenchmarkReplayTrial(b *testing.B) {
	_, grid, core, rqs := replaySetup(b)
	store, err := runs.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "bench"}, time.Unix(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		batch := run.NewTrialBatch()
		results := core.Records(rqs, grid[i%len(grid)])
		if err := batch.Record(runs.TrialRecord{Index: i % 1000, Name: "t", Params: experiments.Params{}}, results); err != nil {
			b.Fatal(err)
		}
		batch.Abort()
		i++
	}
}

// BenchmarkReplayFacts is the per-config work of a replayed trial in a
// sweep: every demo query fused once under a config of the bench grid,
// scored, and its statistics' facts made (per-query scores, the result
// key over the recorded top, judged-only values). One op is one config.
//
//	go test -run '^$' -bench ReplayFacts -count 10 ./tuner
func BenchmarkReplayFacts(b *testing.B) {
	qs, pls := demoLists(b)
	sc, grid := demoScorer(b), benchGrid()
	rp := replay.NewReplayer(sc, pass.DefaultDepth)
	col := &replay.Collection{Queries: make([]replay.Collected, len(qs)), Golden: qs, Scorer: sc, K: pass.DefaultDepth}
	for i, q := range qs {
		col.Queries[i].Query = rp.Prepare(q, pls[i])
	}
	judgments := scoring.JudgmentsOf(qs)
	names := scoring.JudgedOnlyMetrics(sc.Metrics())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fb := col.NewFacts(rp, grid[i%len(grid)], judgments, sc, names)
		for q := range col.Queries {
			fb.Query(q)
		}
		fb.Done(scoring.QueryErrorFail)
		i++
	}
}
