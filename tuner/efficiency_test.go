package tuner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/demo"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// Sample-efficiency benchmark settings: the 55-point grid, the
// continuous space the samplers search instead, their budget and seeds.
var (
	effGridK       = []float64{10, 20, 40, 60, 80}
	effGridWeights = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	effSeeds       = []int64{1, 2, 3, 4, 5}
	effSpace       = []experiments.SpaceParam{
		{Param: "fusion.k", Type: "int", Low: 10, High: 80},
		{Param: "fusion.weights.bm25", Type: "float", Low: 0, High: 1},
	}
)

const (
	effBudget    = 20    // sampled trials per study
	effTolerance = 0.005 // "within 0.5% of the grid optimum"
	effDepth     = 100   // candidates collected per retriever
)

// offline scores RRF configurations of one index without the backend: each
// query's candidate lists were collected once through the engine's explain
// output, and are fused with backend/fusion (the engine's own code) and
// scored with the tuner's default composite.
type offline struct {
	queries []scoring.Query
	lists   []*fusion.Prepared
	scorer  scoring.Scorer
}

// score is the mean primary score of RRF with rank constant k, bm25 weight
// w and dense weight 1-w.
func (o *offline) score(k, w float64) float64 { return o.scoreOn(k, w, nil) }

// scoreOn is score over the queries of subset (nil: all).
func (o *offline) scoreOn(k, w float64, subset []int) float64 {
	if subset == nil {
		subset = make([]int, len(o.queries))
		for i := range subset {
			subset[i] = i
		}
	}
	p := fusion.Params{Method: fusion.RRF, K: k, Depth: effDepth, Weights: map[string]float64{engine.BM25: w, engine.Dense: 1 - w}}
	var f fusion.Fuser
	var buf []fusion.Result
	sum, n := 0.0, 0
	for _, i := range subset {
		q := o.queries[i]
		if len(q.Judgments) == 0 {
			continue
		}
		buf = f.FuseTopInto(buf[:0], o.lists[i], p, false, pass.DefaultDepth)
		ranking := make([]string, len(buf))
		for j, r := range buf {
			ranking[j] = r.DocID
		}
		_, primary := o.scorer.Score(ranking, q.Judgments)
		sum += primary
		n++
	}
	return sum / float64(n)
}

// collect builds the engine for cfg and asks it once per query for its
// candidate lists.
func collect(t *testing.T, cfg engine.Config, queries []scoring.Query) *offline {
	t.Helper()
	e, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	sc, err := scoring.NewScorer("default", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	o := &offline{queries: queries, scorer: sc}
	for _, q := range queries {
		resp, err := e.Search(context.Background(), backend.SearchRequest{Query: q.Text, K: effDepth, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		o.lists = append(o.lists, fusion.Prepare(resp.Candidates))
	}
	return o
}

// trialsToReach runs a study and returns the 1-based trial at which the
// best score so far comes within effTolerance of target (budget+1: never).
func trialsToReach(t *testing.T, o *offline, name string, seed int64, target float64) int {
	t.Helper()
	study, err := sampler.New(sampler.Options{Space: effSpace, Sampler: name, Seed: seed, Trials: effBudget})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= effBudget; i++ {
		p, err := study.Ask()
		if err != nil {
			t.Fatal(err)
		}
		v := o.score(p.Params["fusion.k"].(float64), p.Params["fusion.weights.bm25"].(float64))
		if err := study.Tell(p, runs.TrialRecord{Status: runs.StatusOK, Primary: v}); err != nil {
			t.Fatal(err)
		}
		if v >= target*(1-effTolerance) {
			return i
		}
	}
	return effBudget + 1
}

// effPruning is the pruning the benchmark's last row uses.
var effPruning = experiments.Pruning{Enabled: true, Fraction: 0.25, ReductionFactor: 3}

// costToReach runs a TPE study with pruning and returns the query
// evaluations spent, in full-set equivalents, until a trial evaluated on
// every query comes within effTolerance of target (0: never).
func costToReach(t *testing.T, o *offline, seed int64, target float64) float64 {
	t.Helper()
	study, err := sampler.New(sampler.Options{Space: effSpace, Sampler: sampler.TPE, Seed: seed, Trials: effBudget, Pruning: effPruning})
	if err != nil {
		t.Fatal(err)
	}
	subsets := tuner.RungSubsets(o.queries, seed, effPruning)
	spent := 0
	for i := 1; i <= effBudget; i++ {
		p, err := study.Ask()
		if err != nil {
			t.Fatal(err)
		}
		k, w := p.Params["fusion.k"].(float64), p.Params["fusion.weights.bm25"].(float64)
		rec := runs.TrialRecord{Status: runs.StatusOK}
		for r, sub := range subsets {
			rec.Primary = o.scoreOn(k, w, sub)
			spent += len(sub) - prevLen(subsets, r)
			prune, err := study.Report(p, r, rec.Primary)
			if err != nil {
				t.Fatal(err)
			}
			if prune {
				rec.Status = runs.StatusPruned
				break
			}
		}
		if rec.Status == runs.StatusOK {
			rec.Primary = o.score(k, w)
			spent += len(o.queries) - prevLen(subsets, len(subsets))
		}
		if err := study.Tell(p, rec); err != nil {
			t.Fatal(err)
		}
		if rec.Status == runs.StatusOK && rec.Primary >= target*(1-effTolerance) {
			return float64(spent) / float64(len(o.queries))
		}
	}
	return 0
}

// prevLen is the size of the rung subset before rung r (0 for the first).
func prevLen(subsets [][]int, r int) int {
	if r == 0 {
		return 0
	}
	return len(subsets[r-1])
}

// TestSampleEfficiency measures how many trials random search, TPE and
// CMA-ES need to come within 0.5% of the best of the 55-point grid, median
// over 5 seeds, on the demo dataset and on ../shared/data/scifact. It runs
// only with FUSIONTUNE_BENCH_SAMPLERS=1 (scripts/bench-samplers.sh) and
// writes its table to FUSIONTUNE_BENCH_OUT when set.
func TestSampleEfficiency(t *testing.T) {
	if os.Getenv("FUSIONTUNE_BENCH_SAMPLERS") == "" {
		t.Skip("set FUSIONTUNE_BENCH_SAMPLERS=1 (or run scripts/bench-samplers.sh) to measure sample efficiency")
	}
	var table, costTable strings.Builder
	fmt.Fprintf(&costTable, "| dataset | search | full-set query evaluations to within 0.5%% (5 seeds) | median |\n|---|---|---|---|\n")
	fmt.Fprintf(&table, "| dataset | queries | grid optimum (k, w_bm25) | sampler | trials to within 0.5%% (5 seeds) | median | median / 55 grid trials |\n|---|---|---|---|---|---|---|\n")
	for _, ds := range []struct {
		name string
		load func(t *testing.T) (engine.Config, []scoring.Query)
	}{{"demo", demoData}, {"scifact", scifactData}} {
		t.Run(ds.name, func(t *testing.T) {
			cfg, queries := ds.load(t)
			o := collect(t, cfg, queries)
			best, bestK, bestW := -1.0, 0.0, 0.0
			for _, k := range effGridK {
				for _, w := range effGridWeights {
					if v := o.score(k, w); v > best {
						best, bestK, bestW = v, k, w
					}
				}
			}
			for _, name := range []string{sampler.Random, sampler.TPE, sampler.CMAES} {
				var need []int
				var cells []string
				for _, seed := range effSeeds {
					n := trialsToReach(t, o, name, seed, best)
					need = append(need, n)
					cells = append(cells, trialsCell(n))
				}
				sorted := append([]int(nil), need...)
				sort.Ints(sorted)
				med := sorted[len(sorted)/2]
				grid := len(effGridK) * len(effGridWeights)
				line := fmt.Sprintf("| %s | %d | %.4f (%v, %v) | %s | %s | %s | %s |\n", ds.name, len(queries), best, bestK, bestW, name,
					strings.Join(cells, ", "), trialsCell(med), ratioCell(med, grid))
				t.Log(strings.TrimSpace(line))
				table.WriteString(line)
				if name == sampler.TPE {
					costTable.WriteString(fmt.Sprintf("| %s | tpe | %s | %s |\n", ds.name, strings.Join(cells, ", "), trialsCell(med)))
				}
			}
			var costs []float64
			var cells []string
			for _, seed := range effSeeds {
				c := costToReach(t, o, seed, best)
				if c == 0 {
					c = float64(effBudget + 1)
					cells = append(cells, fmt.Sprintf(">%d", effBudget))
				} else {
					cells = append(cells, fmt.Sprintf("%.2f", c))
				}
				costs = append(costs, c)
			}
			sort.Float64s(costs)
			medCell := fmt.Sprintf("%.2f", costs[len(costs)/2])
			if costs[len(costs)/2] > effBudget {
				medCell = fmt.Sprintf(">%d", effBudget)
			}
			line := fmt.Sprintf("| %s | tpe + pruning (fraction %v, η %d) | %s | %s |\n", ds.name, effPruning.Fraction, effPruning.ReductionFactor, strings.Join(cells, ", "), medCell)
			t.Log(strings.TrimSpace(line))
			costTable.WriteString(line)
		})
	}
	fmt.Fprintf(&table, "\n%s", costTable.String())
	fmt.Fprintf(&table, "\nBudget %d sampled trials per study (TPE/CMA-ES: %d random startup trials); \">%d\" = not reached within the budget.\n",
		effBudget, sampler.DefaultStartupTrials(effBudget), effBudget)
	if out := os.Getenv("FUSIONTUNE_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func trialsCell(n int) string {
	if n > effBudget {
		return fmt.Sprintf(">%d", effBudget)
	}
	return fmt.Sprint(n)
}

func ratioCell(n, grid int) string {
	if n > effBudget {
		return fmt.Sprintf(">%.0f%%", 100*float64(effBudget)/float64(grid))
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(grid))
}

// demoData is the shipped demo dataset: its corpus with hash-384 vectors
// (the sweep's default), its golden set resolved to document ids.
func demoData(t *testing.T) (engine.Config, []scoring.Query) {
	dir, err := demo.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gs, err := experiments.LoadGoldenSet(filepath.Join(dir, "golden.json"), experiments.LoadOptions{Format: experiments.FormatNative})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engineConfig(t, filepath.Join(dir, "corpus.jsonl"), "", "hash-384")
	return cfg, resolveQueries(t, gs, cfg.Corpus)
}

// scifactData is BEIR SciFact (test qrels) with lsa-256 vectors.
func scifactData(t *testing.T) (engine.Config, []scoring.Query) {
	dir := shareddata.Path(t, "scifact")
	gs, err := experiments.LoadGoldenSet(dir, experiments.LoadOptions{Format: experiments.FormatBEIR})
	if err != nil {
		t.Fatal(err)
	}
	cfg := engineConfig(t, filepath.Join(dir, "corpus.jsonl"), corpus.FormatBEIR, "lsa-256")
	return cfg, resolveQueries(t, gs, cfg.Corpus)
}

func engineConfig(t *testing.T, path, format, model string) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Corpus = corpus.Config{Path: path, Format: format}
	cfg.Retrievers = []string{engine.BM25, engine.Dense}
	cfg.Dense.Model = model
	cfg.Depth = effDepth
	cfg.CacheDir = filepath.Join(os.TempDir(), "fusiontune-bench-samplers-cache")
	return cfg
}

func resolveQueries(t *testing.T, gs *experiments.GoldenSet, c corpus.Config) []scoring.Query {
	t.Helper()
	cp, err := corpus.Load(c)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]experiments.Document, len(cp.Docs))
	for i, d := range cp.Docs {
		docs[i] = experiments.Document{ID: d.ID, Text: d.Text}
	}
	res, err := gs.Resolve(docs)
	if err != nil {
		t.Fatal(err)
	}
	var out []scoring.Query
	for _, q := range gs.Queries {
		tq := scoring.Query{ID: q.ID, Text: q.Text, Category: q.Category}
		if rq := res.Query(q.ID); rq != nil {
			tq.Judgments = rq.Judgments
		}
		out = append(out, tq)
	}
	return out
}
