package main

import (
	"context"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

const judgeAgreeUsage = `[--by category] [--judge NAME] [--format text|json] [--config tune.yaml]

Compares the llm judges' labels (or --judge NAME's, any source) with the
reference: the golden set's judgments and people's labels (gold wins).
For each judge, over the pairs both graded: the confusion matrix (rows:
reference grade, columns: the judge's), exact agreement and Cohen's kappa
with quadratic weights (the headline: a grade off by two costs four times
one off by one) and linear weights; --by category adds a row per query
category. Kappa is n/a when undefined (one grade only).`

var judgeAgreeSpec = judgeSpec("agree", judgeAgreeUsage,
	cli.String("by", "", "category: one row per query category").OneOf("category").AlsoAccepts(""),
	cli.String("judge", "", "compare this judge (default: every llm judge)"),
	cli.String("format", "text", "text or json").OneOf("text", "json"))

func runJudgeAgree(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgeAgreeSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("judge agree: unexpected argument %q", fs.Arg(0))
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	c, err := judging.Agree(ctx, e, fs.Str("judge"), fs.Str("by") == "category")
	if err != nil {
		return runError(err)
	}
	if fs.Str("format") == "json" {
		return c.WriteJSON(a.stdout, e.ID)
	}
	return c.WriteText(a.stdout)
}
