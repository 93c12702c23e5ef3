// Command judgerecovery is the honest recovery experiment of
// judge-as-you-tune (scripts/judge-recovery.sh runs it on the demo and on
// BEIR SciFact): hide half of each query's judgments (seeded), run a real
// `tune` sweep (a replayed fusion grid) on the rest, then pool the leading
// trials' unjudged hits and judge them with the file judge reading the
// hidden judgments, round after round. It prints the Kendall tau between
// the trials' order under the full judgments and (a) the order with half
// hidden, (b) after one and (c) after two pooling rounds, and the pairs
// each round asked the judge about.
//
// Every order is scored from the same recorded results (the top 20 hits
// each trial keeps) with the run's own scorer, so the orders differ only
// in the judgments.
//
// With -strategies it asks another question instead: with -hide of each
// query's judgments hidden, for each of -seeds, how many pairs the file
// judge is asked (-round-budget a round) until the promotion decision is
// the one the full judgments give, by depth and by decision pooling
// (strategies.go).
//
//	judgerecovery -tune bin/tune -data DIR -out DIR [-engine YAML] [-seed 1] [-rounds 2]
//	judgerecovery -tune bin/tune -data DIR -out DIR -strategies -hide 0.8 -seeds 1,2,3 -round-budget 10
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// grid is the sweep: RRF over k and the bm25 weight, and min-max linear
// fusion over the bm25 weight (30 configurations).
const grid = `{"name": "judge-recovery", "seed": 1,
 "baseline": {"name": "baseline", "params": {"fusion.method": "rrf", "fusion.k": 60}},
 "experiments": [
  {"name": "linear", "params": {"fusion.method": "linear", "fusion.normalization": "min_max"}}
 ],
 "grid": {"fusion.k": [1, 10, 30, 60, 100], "fusion.weights.bm25": [0.2, 0.35, 0.5, 0.65, 0.8]}}
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "judgerecovery:", err)
		os.Exit(1)
	}
}

// Result is the experiment's outcome, also written as OUT/recovery.json.
type Result struct {
	Dataset   string `json:"dataset"`
	Queries   int    `json:"queries"`
	Judgments int    `json:"judgments"`
	Hidden    int    `json:"hidden"`
	Trials    int    `json:"trials"`
	Seed      uint64 `json:"seed"`
	Leading   int    `json:"leading"`
	Depth     int    `json:"depth"`
	// RoundBudget is the most pairs judged per round (0: all pooled).
	RoundBudget int     `json:"round_budget"`
	AllPairs    int     `json:"unjudged_pairs_all_trials"`
	Stages      []Stage `json:"stages"`
	TrueBest    string  `json:"true_best"`
}

// Stage is one row of the table.
type Stage struct {
	Name string  `json:"name"`
	Tau  float64 `json:"kendall_tau"`
	// Asked and Labels are this round's pairs sent to the judge and the
	// labels it gave; Cumulative the pairs asked so far.
	Asked      int    `json:"asked"`
	Labels     int    `json:"labels"`
	Cumulative int    `json:"cumulative_asked"`
	Best       string `json:"best"`
	// Top5 is how many of the true top 5 are in this order's top 5.
	Top5 int `json:"top5_overlap"`
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("judgerecovery", flag.ContinueOnError)
	tune := fs.String("tune", "bin/tune", "the tune binary")
	data := fs.String("data", "", "BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv)")
	out := fs.String("out", "", "work directory (created)")
	name := fs.String("name", "", "dataset name for the table (default: the folder's name)")
	engine := fs.String("engine", "", "extra YAML lines of backend.engine (e.g. \"dense: {model: lsa-256}\")")
	seed := fs.Uint64("seed", 1, "seed of the hidden half")
	rounds := fs.Int("rounds", 2, "pooling rounds")
	leading := fs.Int("leading", judging.DefaultJudgeLeading, "trials pooled each round")
	depth := fs.Int("depth", judging.DefaultJudgeK, "pool depth")
	perRound := fs.Int("round-budget", 0, "most pairs judged per round (0: the whole pool)")
	strategies := fs.Bool("strategies", false, "compare depth and decision pooling: pairs until the decision is the one full judgments give")
	hide := fs.Float64("hide", 0.5, "with -strategies: the share of each query's judgments hidden, in (0, 1)")
	seeds := fs.String("seeds", "1,2,3", "with -strategies: the seeds of the hidden judgments")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *out == "" {
		return errors.New("want -data DIR and -out DIR")
	}
	if *name == "" {
		*name = filepath.Base(*data)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	*data, *out, *tune = abs(*data), abs(*out), abs(*tune)
	if *strategies {
		if !(*hide > 0 && *hide < 1) || *perRound < 1 {
			return errors.New("-strategies: want -hide in (0, 1) and -round-budget >= 1")
		}
		var ss []uint64
		for _, f := range strings.Split(*seeds, ",") {
			v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return fmt.Errorf("-seeds %q: %w", *seeds, err)
			}
			ss = append(ss, v)
		}
		return compareStrategies(stdout, benchSetup{tune: *tune, data: *data, out: *out, engine: *engine, name: *name}, *hide, ss, *perRound)
	}
	full, err := readBEIRQrels(filepath.Join(*data, "qrels", "test.tsv"))
	if err != nil {
		return err
	}
	visible, hidden := hideShare(full, *seed, 0.5)
	res := Result{Dataset: *name, Queries: len(full), Seed: *seed, Leading: *leading, Depth: *depth, RoundBudget: *perRound}
	for q := range full {
		res.Judgments += len(full[q])
		res.Hidden += len(hidden[q])
	}
	runDir, err := sweep(*tune, *data, *out, *engine, visible, hidden)
	if err != nil {
		return err
	}
	r, lb, sc, trials, err := loadSweep(runDir)
	if err != nil {
		return err
	}
	results := map[string][]runs.QueryResult{}
	var names []string
	for _, t := range trials {
		results[t.Name] = t.Results
		names = append(names, t.Name)
	}
	res.Trials = len(names)
	order := func(j scoring.Judgments) []string {
		type s struct {
			name string
			p    float64
		}
		var ss []s
		for _, n := range names {
			ss = append(ss, s{n, scoring.ScoreRecorded(results[n], j, sc, nil).Primary})
		}
		slices.SortStableFunc(ss, func(a, b s) int { return cmp.Or(cmp.Compare(b.p, a.p), cmp.Compare(a.name, b.name)) })
		out := make([]string, len(ss))
		for i, x := range ss {
			out[i] = x.name
		}
		return out
	}
	truth := order(scoring.Judgments(full))
	res.TrueBest = truth[0]
	stage := func(name string, o []string) Stage {
		return Stage{Name: name, Tau: runs.Round(judging.OrderTau(truth, o)), Best: o[0], Top5: overlap(truth, o, 5)}
	}
	res.Stages = append(res.Stages, stage("(a) half hidden", order(scoring.Judgments(visible))))
	// What judging every trial's unjudged top-depth hits would cost.
	var all []pool.Ranking
	for _, n := range names {
		for _, q := range results[n] {
			docs := make([]string, len(q.Top))
			for i, d := range q.Top {
				docs[i] = d.DocID
			}
			all = append(all, pool.Ranking{Source: n, Query: q.QueryID, Docs: docs})
		}
	}
	everything, err := pool.Build(*name, all, func(q, d string) bool { _, ok := visible[q][d]; return ok }, *depth)
	if err != nil {
		return err
	}
	res.AllPairs = len(everything.Pairs)

	hiddenFile := filepath.Join(*out, "hidden.qrels")
	fj, err := judge.NewFile(hiddenFile, labels.Rules{Dataset: dataset.RunDatasetID(r)})
	if err != nil {
		return err
	}
	var orders [][]string
	loop := &judging.JudgeLoop{
		Name: fj.Name(), Budget: 1 << 30, RoundBudget: *perRound, Target: 1, Leading: *leading, K: *depth, MaxRounds: *rounds, Log: os.Stderr,
		Judge: func(ctx context.Context, pairs []pool.Pair) ([]labels.Label, error) {
			in := make([]judge.Pair, len(pairs))
			for i, p := range pairs {
				in[i] = judge.Pair{Query: p.Query, Doc: p.Doc}
			}
			return fj.Judge(ctx, in)
		},
		OnRound: func(_ int, o []string) { orders = append(orders, o) },
	}
	// The loop orders by the same scorer over the same results; its own
	// judgments start from the visible half.
	rec, _, err := loop.Run(context.Background(), r, lb, scoring.Judgments(visible), sc)
	if err != nil {
		return err
	}
	cum := 0
	for i, rd := range rec.Rounds {
		cum += rd.Asked
		st := stage(fmt.Sprintf("(%c) after round %d", 'b'+i, rd.Round), orders[i])
		st.Asked, st.Labels, st.Cumulative = rd.Asked, rd.Labels, cum
		res.Stages = append(res.Stages, st)
	}
	data2, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "recovery.json"), append(data2, '\n'), 0o644); err != nil {
		return err
	}
	writeTable(stdout, res, rec.Stopped)
	return nil
}

func writeTable(w io.Writer, res Result, stopped string) {
	per := "the whole pool each round"
	if res.RoundBudget > 0 {
		per = fmt.Sprintf("at most %d pairs a round, highest priority first", res.RoundBudget)
	}
	fmt.Fprintf(w, "## %s: %d queries, %d judgments, %d hidden (seed %d); %d trials; pools of the top %d trials' top %d, %s\n\n",
		res.Dataset, res.Queries, res.Judgments, res.Hidden, res.Seed, res.Trials, res.Leading, res.Depth, per)
	fmt.Fprintf(w, "| stage | Kendall tau vs full judgments | pairs asked (round) | labels (round) | pairs asked (total) | best trial | true top 5 in top 5 |\n")
	fmt.Fprintf(w, "| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range res.Stages {
		fmt.Fprintf(w, "| %s | %.4f | %d | %d | %d | %s | %d |\n", s.Name, s.Tau, s.Asked, s.Labels, s.Cumulative, s.Best, s.Top5)
	}
	fmt.Fprintf(w, "\ntrue best: %s; judging every trial's unjudged top %d would ask %d pairs; the loop stopped: %s\n\n",
		res.TrueBest, res.Depth, res.AllPairs, stopped)
}

func overlap(a, b []string, k int) int {
	in := map[string]bool{}
	for _, x := range a[:min(k, len(a))] {
		in[x] = true
	}
	n := 0
	for _, x := range b[:min(k, len(b))] {
		if in[x] {
			n++
		}
	}
	return n
}

// readBEIRQrels reads a BEIR qrels tsv (header, query-id corpus-id score).
func readBEIRQrels(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fl := strings.Fields(sc.Text())
		if line == 1 || len(fl) != 3 {
			continue
		}
		g, err := strconv.Atoi(fl[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if out[fl[0]] == nil {
			out[fl[0]] = map[string]int{}
		}
		out[fl[0]][fl[1]] = g
	}
	return out, sc.Err()
}

// hideShare hides share of each query's judgments: its judged documents
// (sorted) are shuffled by a generator seeded with seed and the query id,
// and the first share·n hidden, one more with the probability of the
// fraction left (a half: one coin flip, so that share 0.5 hides n/2, and
// one more with probability 1/2 when n is odd).
func hideShare(full map[string]map[string]int, seed uint64, share float64) (visible, hidden map[string]map[string]int) {
	visible, hidden = map[string]map[string]int{}, map[string]map[string]int{}
	for q, docs := range full {
		h := fnv.New64a()
		h.Write([]byte(q))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		ids := make([]string, 0, len(docs))
		for d := range docs {
			ids = append(ids, d)
		}
		slices.Sort(ids)
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		x := share * float64(len(ids))
		n := int(x)
		switch rest := x - float64(n); {
		case rest == 0.5:
			if rng.IntN(2) == 1 {
				n++
			}
		case rest > 0 && rng.Float64() < rest:
			n++
		}
		for i, d := range ids {
			m := visible
			if i < n {
				m = hidden
			}
			if m[q] == nil {
				m[q] = map[string]int{}
			}
			m[q][d] = docs[d]
		}
	}
	return visible, hidden
}

// sweep writes the half-hidden BEIR folder, the hidden qrels, the settings
// and the grid under out, runs the sweep and returns its run directory.
func sweep(tune, data, out, engine string, visible, hidden map[string]map[string]int) (string, error) {
	ds := filepath.Join(out, "data")
	if err := os.RemoveAll(out); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(ds, "qrels"), 0o755); err != nil {
		return "", err
	}
	for _, f := range []string{"corpus.jsonl", "queries.jsonl"} {
		if err := os.Symlink(filepath.Join(data, f), filepath.Join(ds, f)); err != nil {
			return "", err
		}
	}
	var vis, hid strings.Builder
	vis.WriteString("query-id\tcorpus-id\tscore\n")
	for _, q := range sortedKeys(visible) {
		for _, d := range sortedKeys(visible[q]) {
			fmt.Fprintf(&vis, "%s\t%s\t%d\n", q, d, visible[q][d])
		}
	}
	for _, q := range sortedKeys(hidden) {
		for _, d := range sortedKeys(hidden[q]) {
			fmt.Fprintf(&hid, "%s 0 %s %d\n", q, d, hidden[q][d])
		}
	}
	files := map[string]string{
		filepath.Join(ds, "qrels", "test.tsv"): vis.String(),
		filepath.Join(out, "hidden.qrels"):     hid.String(),
		filepath.Join(out, "grid.json"):        grid,
		filepath.Join(out, "tune.yaml"): fmt.Sprintf("runs_dir: runs\ndataset:\n  path: %s\n  id: %s\nbackend:\n  kind: embedded\n  engine:\n    corpus: {path: %s, format: beir}\n%s",
			ds, filepath.Base(data), filepath.Join(ds, "corpus.jsonl"), indent(engine, "    ")),
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command(tune, "--experiments", "grid.json", "--mode", "replay", "--split", "all", "--format", "json")
	cmd.Dir = out
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tune sweep: %w\n%s", err, stderr.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "runs", "2*"))
	if len(dirs) != 1 {
		return "", fmt.Errorf("want one run directory, got %v", dirs)
	}
	return dirs[0], nil
}

// runScorer is the run's own scorer, as its first collection records it.
func runScorer(r *runs.Run) (*scoring.MetricsScorer, error) {
	cols, _ := filepath.Glob(filepath.Join(r.Dir, runs.TrialsDir, "collect-*.jsonl"))
	if len(cols) == 0 {
		return nil, errors.New("the run has no collection (not replayed?)")
	}
	f, err := os.Open(cols[0])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var h struct {
		Scorer scoring.ScorerSpec `json:"scorer"`
	}
	if err := json.NewDecoder(f).Decode(&h); err != nil {
		return nil, fmt.Errorf("%s: %w", cols[0], err)
	}
	return scoring.NewScorerFromSpec(h.Scorer)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func indent(s, pre string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(pre + l + "\n")
	}
	return b.String()
}
