package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/experiments/judge"
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
	by, name, format := fs.Str("by"), fs.Str("judge"), fs.Str("format")
	if fs.NArg() > 0 {
		return usageErrorf("judge agree: unexpected argument %q", fs.Arg(0))
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	st, err := a.openLabels(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	ls, err := st.Latest(ctx, e.dataset)
	if err != nil {
		return err
	}
	c := judge.Compare(ls, e.ds.Gold(), e.ds.Categories(), name, e.ds.Golden.Scale.Max, by == "category")
	if len(c.Reports) == 0 {
		what := "llm labels"
		if name != "" {
			what = fmt.Sprintf("labels by %q", name)
		}
		return failedError(fmt.Errorf("judge agree: no %s of dataset %q in %s (run 'tune judge run --judge llm' first)", what, e.dataset, st.Location.Redacted))
	}
	if format == "json" {
		return c.WriteJSON(a.stdout, e.dataset)
	}
	return c.WriteText(a.stdout)
}
