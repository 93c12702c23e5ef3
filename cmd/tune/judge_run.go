package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	tunesettings "github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
)

var judgeRunSpec = judgeSpec("run", cli.NoArgs,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("judge", "llm", "llm, file:PATH (a qrels file), or ensemble (the judges of setting judge.ensemble, voting)"),
	cli.Bool("dry-run", false, "print what judging would cost; call nothing, write nothing"),
	cli.Bool("refresh", false, "judge every pair of the pool again, those already labelled included, bypassing the llm answer cache"),
	cli.Int64("budget-calls", 0, "most calls, retries included (0: no bound; setting judge.budget.calls)").Range(0, tunesettings.MaxJudgeBudget).Bind("judge.budget.calls"),
	cli.Int64("budget-tokens", 0, "most tokens (0: no bound; setting judge.budget.tokens)").Range(0, tunesettings.MaxJudgeBudget).Bind("judge.budget.tokens"),
	cli.Int("concurrency", llm.DefaultConcurrency, fmt.Sprintf("calls at once, 1..%d (setting judge.concurrency)", llm.MaxConcurrency)).Range(1, llm.MaxConcurrency).Bind("judge.concurrency"))

func runJudgeRun(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeRunSpec, args)
	if err != nil {
		return err
	}
	r, err := judging.Run(ctx, e, judging.RunRequest{Pool: fs.Str("pool"), Judge: fs.Str("judge"), DryRun: fs.Bool("dry-run"), Refresh: fs.Bool("refresh"), Log: a.stderr})
	if errors.Is(err, judge.ErrSpec) {
		return usageErrorf("judge run: --judge: %v", err)
	}
	if err != nil {
		return err
	}
	r.WriteText(a.stdout, a.stderr)
	return nil
}
