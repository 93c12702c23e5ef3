package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// benchSetup is where a strategies comparison runs its sweeps.
type benchSetup struct {
	tune, data, out, engine, name string
}

// strategyResult is one strategy's outcome on one seed.
type strategyResult struct {
	// Until is the pairs asked until the decision became the full one
	// and stayed so (-1: it never did).
	Until   int
	Asked   int
	Stopped string
}

// compareStrategies hides share of the judgments for each seed, runs the
// sweep on the rest, and judges with the file judge reading the hidden
// ones, round after round (perRound pairs a round, 100 rounds at most),
// once by depth pooling (the top 20 of the five leading trials) and once
// by decision pooling. It prints, per seed, the decision under the full
// judgments, whether the visible ones already give it, and for each
// strategy the pairs asked until the decision is the full one for good.
func compareStrategies(w io.Writer, b benchSetup, share float64, seeds []uint64, perRound int) error {
	full, err := readBEIRQrels(filepath.Join(b.data, "qrels", "test.tsv"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## %s: %.0f%% of each query's judgments hidden; %d pairs a round, 100 rounds at most\n\n", b.name, 100*share, perRound)
	fmt.Fprintf(w, "| seed | judgments visible | decision under full judgments | with the visible ones | depth: pairs until it (stopped) | decision: pairs until it (stopped) |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, seed := range seeds {
		visible, hidden := hideShare(full, seed, share)
		out := filepath.Join(b.out, fmt.Sprintf("seed-%d", seed))
		runDir, err := sweep(b.tune, b.data, out, b.engine, visible, hidden)
		if err != nil {
			return err
		}
		r, lb, sc, trials, err := loadSweep(runDir)
		if err != nil {
			return err
		}
		maxGrade := 1
		for _, docs := range full {
			for _, g := range docs {
				maxGrade = max(maxGrade, g)
			}
		}
		decide := func(j map[string]map[string]int) (string, error) {
			a, err := decision.Analyze(decision.Input{Trials: trials, Baseline: lb.Baseline, Judgments: scoring.Judgments(j), Scorer: sc, MaxGrade: maxGrade})
			if err != nil {
				return "", err
			}
			return decisionOf(a.Leader, lb.Baseline), nil
		}
		want, err := decide(full)
		if err != nil {
			return err
		}
		start, err := decide(visible)
		if err != nil {
			return err
		}
		res := map[string]strategyResult{}
		for _, strat := range decision.Strategies {
			sr, err := runStrategy(r, lb, visible, filepath.Join(out, "hidden.qrels"), sc, strat, perRound, maxGrade, want, start == want)
			if err != nil {
				return err
			}
			res[strat] = sr
		}
		nVisible := 0
		for _, docs := range visible {
			nVisible += len(docs)
		}
		fmt.Fprintf(w, "| %d | %d | %s | %s | %s | %s |\n", seed, nVisible, want, map[bool]string{true: "same", false: "differs: " + start}[start == want],
			res[decision.StrategyDepth].cell(), res[decision.StrategyDecision].cell())
	}
	fmt.Fprintln(w)
	return nil
}

// loadSweep reads a sweep's run: its leaderboard, its scorer and its
// successful trials' recorded results (trials the same as another left
// out), in leaderboard order.
func loadSweep(runDir string) (*runs.Run, runs.Leaderboard, *scoring.MetricsScorer, []decision.Trial, error) {
	r, err := runs.Load(runDir)
	if err != nil {
		return nil, runs.Leaderboard{}, nil, nil, err
	}
	replay.EnsureDeriver(r)
	lb, err := r.ReadLeaderboard()
	if err != nil {
		return nil, lb, nil, nil, err
	}
	sc, err := runScorer(r)
	if err != nil {
		return nil, lb, nil, nil, err
	}
	var trials []decision.Trial
	for _, e := range lb.Trials {
		if e.Status != runs.StatusOK || e.SameAs != "" {
			continue
		}
		qr, err := r.QueryResults(e.Index)
		if err != nil {
			return nil, lb, nil, nil, err
		}
		trials = append(trials, decision.Trial{Name: e.Name, Results: qr})
	}
	return r, lb, sc, trials, nil
}

func (s strategyResult) cell() string {
	until := "never"
	if s.Until >= 0 {
		until = fmt.Sprint(s.Until)
	}
	return fmt.Sprintf("%s (%s after %d)", until, s.Stopped, s.Asked)
}

// decisionOf names a decision: ship the leader, or keep the baseline.
func decisionOf(leader, baseline string) string {
	if leader == baseline {
		return "keep " + baseline
	}
	return "ship " + leader
}

// runStrategy runs the judge loop with strat from the visible judgments
// and returns when its decision became want for good.
func runStrategy(r *runs.Run, lb runs.Leaderboard, visible map[string]map[string]int, hiddenFile string, sc scoring.Scorer, strat string, perRound, maxGrade int, want string, startOK bool) (strategyResult, error) {
	fj, err := judge.NewFile(hiddenFile, labels.Rules{Dataset: dataset.RunDatasetID(r)})
	if err != nil {
		return strategyResult{}, err
	}
	var after []string // the decision after each round
	loop := &judging.JudgeLoop{
		Name: fj.Name(), Budget: perRound * judging.MaxJudgeRounds, RoundBudget: perRound, Target: 1, Leading: judging.DefaultJudgeLeading,
		K: scoring.TopRecorded, Strategy: strat, Baseline: lb.Baseline, MaxGrade: maxGrade, Log: io.Discard,
		Judge: func(ctx context.Context, pairs []pool.Pair) ([]labels.Label, error) {
			in := make([]judge.Pair, len(pairs))
			for i, p := range pairs {
				in[i] = judge.Pair{Query: p.Query, Doc: p.Doc}
			}
			return fj.Judge(ctx, in)
		},
		OnRound: func(_ int, o []string) { after = append(after, decisionOf(o[0], lb.Baseline)) },
	}
	rec, _, err := loop.Run(context.Background(), r, lb, scoring.Judgments(visible), sc)
	if err != nil {
		return strategyResult{}, err
	}
	res := strategyResult{Until: -1, Stopped: rec.Stopped}
	cum := make([]int, len(rec.Rounds)+1)
	for i, rd := range rec.Rounds {
		cum[i+1] = cum[i] + rd.Asked
	}
	res.Asked = cum[len(rec.Rounds)]
	// Walk back from the end while the decision is the full one.
	i := len(after)
	for i > 0 && after[i-1] == want {
		i--
	}
	switch {
	case len(after) == 0:
		if startOK {
			res.Until = 0
		}
	case i == len(after): // the last decision differs
	case i == 0 && startOK:
		res.Until = 0
	default: // right from round i+1 on
		res.Until = cum[i+1]
	}
	fmt.Fprintf(os.Stderr, "judgerecovery: %s: %d rounds, stopped: %s\n", strat, len(after), rec.Stopped)
	return res, nil
}
