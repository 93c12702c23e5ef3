package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// judgeCommands is the dispatch table of `tune judge`, in help order.
func judgeCommands() []command {
	return []command{
		{name: "pool", summary: "the unjudged (query, document) pairs in the top of a run's best trials, most-ranked first (pool.jsonl)", run: runJudgePool},
		{name: "run", summary: "judge a pool's pairs with the llm judge or a qrels file, appending labels to the store", run: runJudgeRun},
		{name: "export", summary: "write a pool's pairs with query and document texts for people to label (tsv or jsonl)", run: runJudgeExport},
		{name: "import", summary: "append labelled pairs (a filled export, native labels JSONL or qrels) to the store", run: runJudgeImport},
		{name: "labels", summary: "write the store's labels of the dataset (qrels or native JSONL)", run: runJudgeLabels},
		{name: "agree", summary: "confusion matrix and weighted kappa of llm labels against gold and people, per category", run: runJudgeAgree},
		{name: "audit", summary: "ask the llm judge again about a seeded sample: self-agreement and agreement with the golden set per grade", run: runJudgeAudit},
		{name: "robust", summary: "does a run's winner lead under each judge's labels and under label resamples by confidence", run: runJudgeRobust},
	}
}

// runJudge is `tune judge`: it runs the subcommand args name.
func runJudge(ctx context.Context, a *app, args []string) error {
	var cmds []cli.Command
	for _, c := range judgeCommands() {
		cmds = append(cmds, cli.Command{Name: c.name, Summary: c.summary, Run: func(ctx context.Context, args []string) error { return c.run(ctx, a, args) }})
	}
	return cli.Sub(ctx, "judge", usage("judge"), examples("judge"), cmds, args, a.stdout, a.stderr)
}

// judgeSpec is a judge subcommand's spec (its usage help/judge-NAME.txt,
// its arguments): the flags every one takes, and flags of its own.
func judgeSpec(name string, args *cli.Args, flags ...cli.Flag) cli.Spec {
	return cli.Spec{Name: "judge " + name, Usage: usage("judge-" + name), Args: args, Flags: append([]cli.Flag{configFlag, datasetIDFlag, labelsFlag}, flags...)}
}

// parseJudge parses a judge subcommand's arguments with spec, then loads
// and checks the settings (the judge section's ranges and the judge
// flags bound to it included) and opens the dataset (Settings.JudgeEnv).
func (a *app) parseJudge(spec cli.Spec, args []string) (*cli.Parsed, *judging.Env, error) {
	fs, err := a.parse(spec, args)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return nil, nil, err
	}
	e, err := s.JudgeEnv(a.secrets, a.stderr)
	return fs, e, err
}

var judgeExportSpec = judgeSpec("export", cli.NoArgs,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("format", judge.FormatTSV, "tsv or jsonl").OneOf(judge.FormatTSV, judge.FormatJSONL),
	outFileFlag)

func runJudgeExport(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeExportSpec, args)
	if err != nil {
		return err
	}
	data, n, err := judging.Export(e, fs.Str("pool"), fs.Str("format"))
	if err != nil {
		return err
	}
	if err := a.writeOut(fs.Str("out"), data); err != nil || fs.Str("out") == "" {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %d pairs of dataset %q to label\n", fs.Str("out"), n, e.ID)
	return nil
}

var judgeAgreeSpec = judgeSpec("agree", cli.NoArgs,
	cli.String("by", "", "category: one row per query category").OneOf("category").AlsoAccepts(""),
	cli.String("judge", "", "compare this judge (default: every llm judge)"),
	textJSONFlag)

func runJudgeAgree(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeAgreeSpec, args)
	if err != nil {
		return err
	}
	c, err := judging.Agree(ctx, e, fs.Str("judge"), fs.Str("by") == "category")
	if err != nil {
		return err
	}
	if fs.Str("format") == "json" {
		return c.WriteJSON(a.stdout, e.ID)
	}
	return c.WriteText(a.stdout)
}

var judgeAuditSpec = judgeSpec("audit", cli.NoArgs,
	cli.Int("sample", judging.DefaultAuditSample, "pairs of each kind asked again (1..10000)").Range(1, judging.MaxAuditSample),
	cli.Int64("seed", 1, "seed of the samples"),
	textJSONFlag)

func runJudgeAudit(ctx context.Context, a *app, args []string) error {
	fs, e, err := a.parseJudge(judgeAuditSpec, args)
	if err != nil {
		return err
	}
	if fs.Int64("seed") < 0 {
		return usageErrorf("--seed: want an integer >= 0 (got %d)", fs.Int64("seed"))
	}
	r, err := judging.Audit(ctx, e, judging.AuditRequest{Sample: fs.Int("sample"), Seed: uint64(fs.Int64("seed"))})
	if err != nil {
		return err
	}
	if fs.Str("format") == "json" {
		data, err := runs.MarshalJSON(r)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(data)
		return err
	}
	return r.WriteText(a.stdout)
}
