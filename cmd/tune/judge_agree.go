package main

import (
	"context"

	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

var judgeAgreeUsage = usage("judge-agree")

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
