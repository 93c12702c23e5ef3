package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/experiments/judge/llm"
	"github.com/fusiontune/fusiontune/internal/cli"
	tunesettings "github.com/fusiontune/fusiontune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

const judgeRunUsage = `--pool FILE [--judge llm|file:PATH] [--dry-run] [--budget-calls N] [--budget-tokens N] [--concurrency N] [--config tune.yaml]

Judges the pool's pairs (tune judge pool --out FILE) that the judge has not
labelled yet and appends the labels to the label store.

--judge llm asks the OpenAI-compatible server of the settings' judge
section (url, model, api_key_env, prompt, batch, concurrency, timeout,
retries, budget); answers are cached in the store, so a re-run costs
nothing. --dry-run prints the calls and tokens it would take and writes
nothing. The budget (flags over judge.budget; 0: no bound) is never
exceeded: when it runs out, the labels judged so far are appended and the
rest is left for another run. Any other failure appends nothing (the
answers received stay cached) and exits 1.

--judge file:PATH labels the pairs a qrels file (TREC or BEIR tsv) judges,
as judge "file:<basename>".`

var judgeRunSpec = judgeSpec("run", judgeRunUsage,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("judge", "llm", "llm, or file:PATH (a qrels file)"),
	cli.Bool("dry-run", false, "print what judging would cost; call nothing, write nothing"),
	cli.Int64("budget-calls", 0, "most calls, retries included (0: no bound; setting judge.budget.calls)").Range(0, tunesettings.MaxJudgeBudget),
	cli.Int64("budget-tokens", 0, "most tokens (0: no bound; setting judge.budget.tokens)").Range(0, tunesettings.MaxJudgeBudget),
	cli.Int("concurrency", llm.DefaultConcurrency, fmt.Sprintf("calls at once, 1..%d (setting judge.concurrency)", llm.MaxConcurrency)).Range(1, llm.MaxConcurrency))

// parseJudgeRun parses and checks the flags of `tune judge run`.
func (a *app) parseJudgeRun(args []string) (*cli.Parsed, error) {
	fs, err := a.parse(judgeRunSpec, args)
	if err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("judge run: unexpected argument %q", fs.Arg(0))
	}
	return fs, nil
}

// overrideJudge sets the judge settings the flags name.
func overrideJudge(fs *cli.Parsed, js *tunesettings.Judge) {
	if fs.Given("budget-calls") {
		js.Budget.Calls = ptr(fs.Int64("budget-calls"))
	}
	if fs.Given("budget-tokens") {
		js.Budget.Tokens = ptr(fs.Int64("budget-tokens"))
	}
	if fs.Given("concurrency") {
		js.Concurrency = ptr(fs.Int("concurrency"))
	}
}

func runJudgeRun(ctx context.Context, a *app, args []string) error {
	fs, err := a.parseJudgeRun(args)
	if err != nil {
		return err
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	r, err := judging.Run(ctx, e, judging.RunRequest{Pool: fs.Str("pool"), Judge: fs.Str("judge"), DryRun: fs.Bool("dry-run"), Log: a.stderr})
	if errors.Is(err, judge.ErrSpec) {
		return usageErrorf("judge run: --judge: %v", err)
	}
	if err != nil {
		return runError(err)
	}
	r.WriteText(a.stdout, a.stderr)
	return nil
}
