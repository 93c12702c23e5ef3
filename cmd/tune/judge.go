package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
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
	}
}

var judgeUsage = usage("judge")

// runJudge is `tune judge`: it runs the subcommand args name.
func runJudge(ctx context.Context, a *app, args []string) error {
	var cmds []cli.Command
	for _, c := range judgeCommands() {
		cmds = append(cmds, cli.Command{Name: c.name, Summary: c.summary, Run: func(ctx context.Context, args []string) error { return c.run(ctx, a, args) }})
	}
	return cli.Sub(ctx, "judge", judgeUsage, cmds, args, a.stdout, a.stderr)
}

// judgeSpec is a judge subcommand's spec: the flags every one takes, and
// flags of its own.
func judgeSpec(name, usage string, flags ...cli.Flag) cli.Spec {
	return cli.Spec{Name: "judge " + name, Usage: usage, Flags: append([]cli.Flag{configFlag, datasetIDFlag, labelsFlag}, flags...)}
}

// openJudgeEnv loads and checks the settings (the judge section's ranges
// included), overlays the judge flags fs holds, and opens the dataset
// (Settings.JudgeEnv).
func (a *app) openJudgeEnv(fs *cli.Parsed) (*judging.Env, error) {
	s, err := settingsOf(fs)
	if err != nil {
		return nil, err
	}
	overrideJudge(fs, &s.Judge)
	e, err := s.JudgeEnv(a.secrets, a.stderr)
	return e, runError(err)
}

var judgeExportUsage = usage("judge-export")

var judgeExportSpec = judgeSpec("export", judgeExportUsage,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("format", judge.FormatTSV, "tsv or jsonl").OneOf(judge.FormatTSV, judge.FormatJSONL),
	cli.String("out", "", "file to write (default stdout)"))

func runJudgeExport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgeExportSpec, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("judge export: unexpected argument %q", fs.Arg(0))
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	data, n, err := judging.Export(e, fs.Str("pool"), fs.Str("format"))
	if err != nil {
		return runError(err)
	}
	out := fs.Str("out")
	if out == "" {
		_, err := a.stdout.Write(data)
		return err
	}
	if err := atomicfile.Write(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %d pairs of dataset %q to label\n", out, n, e.ID)
	return nil
}
