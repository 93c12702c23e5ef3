package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/tuner"
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

const judgeUsage = `SUBCOMMAND [flags]

Judges the (query, document) pairs the golden set has not judged and keeps
the labels in the label store (setting labels: a SQLite file, default
labels.db beside tune.yaml, or postgres://USER@HOST:PORT/DB).`

// runJudge is `tune judge`: it runs the subcommand args name.
func runJudge(ctx context.Context, a *app, args []string) error {
	var cmds []cli.Command
	for _, c := range judgeCommands() {
		cmds = append(cmds, cli.Command{Name: c.name, Summary: c.summary, Run: func(ctx context.Context, args []string) error { return c.run(ctx, a, args) }})
	}
	return cli.Sub(ctx, "judge", judgeUsage, cmds, args, a.stdout, a.stderr)
}

// judgeEnv is what judge subcommands share: the settings, the dataset and
// its id in the label store.
type judgeEnv struct {
	s       *settings
	ds      *tuner.Dataset
	dataset string
}

// judgeSpec is a judge subcommand's spec: the flags every one takes, and
// flags of its own.
func judgeSpec(name, usage string, flags ...cli.Flag) cli.Spec {
	return cli.Spec{Name: "judge " + name, Usage: usage, Flags: append([]cli.Flag{configFlag, datasetIDFlag, labelsFlag}, flags...)}
}

// openJudgeEnv loads and checks the settings (the judge section's ranges
// included) and the dataset.
func (a *app) openJudgeEnv(fs *cli.Parsed) (*judgeEnv, error) {
	s, err := settingsOf(fs)
	if err != nil {
		return nil, err
	}
	ds, err := openDataset(s)
	if err != nil {
		return nil, err
	}
	for _, w := range ds.Warnings {
		fmt.Fprintln(a.stderr, "warning:", w)
	}
	return &judgeEnv{s: s, ds: ds, dataset: ds.DatasetID()}, nil
}

// openLabels opens the label store (a postgres URL's password joins the
// secrets every output is scrubbed of).
func (a *app) openLabels(ctx context.Context, e *judgeEnv) (*labels.Store, error) {
	return a.openLabelsIf(ctx, e, true)
}

// openLabelsIf opens the label store (Settings.OpenLabels); with create
// false, a SQLite file that does not exist yet is not created and the
// store is nil.
func (a *app) openLabelsIf(ctx context.Context, e *judgeEnv, create bool) (*labels.Store, error) {
	st, err := e.s.OpenLabels(ctx, a.secrets, create)
	if err != nil {
		return nil, runError(err)
	}
	return st, nil
}

// queries returns the dataset's query ids -> texts and the set of ids.
func (e *judgeEnv) queries() (map[string]string, map[string]bool) {
	return tuner.QueryTexts(e.ds.Queries)
}

// poolPairs reads the pool file and returns its pairs with query and
// document texts (documents from the dataset's corpus, when it has one).
func (e *judgeEnv) poolPairs(path string) ([]judge.Pair, error) {
	pairs, err := e.ds.PoolPairs(path, e.dataset)
	return pairs, runError(err)
}

const judgeExportUsage = `--pool FILE [--format tsv|jsonl] [--out FILE] [--config tune.yaml]

Writes the pool's pairs for people to label: dataset, query, doc, an empty
grade and rationale to fill in, then the query text, document title and
text (tsv: a header row, tabs and line breaks in texts become spaces;
jsonl: the same fields, grade null). Fill in grades (0..the golden set's
top grade; leave empty to skip a row) and append them with
'tune judge import FILE --judge NAME'.`

var judgeExportSpec = judgeSpec("export", judgeExportUsage,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("format", judge.FormatTSV, "tsv or jsonl").OneOf(judge.FormatTSV, judge.FormatJSONL),
	cli.String("out", "", "file to write (default stdout)"))

func runJudgeExport(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(judgeExportSpec, args)
	if err != nil {
		return err
	}
	pool, format, out := fs.Str("pool"), fs.Str("format"), fs.Str("out")
	if fs.NArg() > 0 {
		return usageErrorf("judge export: unexpected argument %q", fs.Arg(0))
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	pairs, err := e.poolPairs(pool)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := judge.ExportPairs(&b, e.dataset, pairs, format); err != nil {
		return err
	}
	if out == "" {
		_, err := a.stdout.Write(b.Bytes())
		return err
	}
	if err := atomicfile.Write(out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %d pairs of dataset %q to label\n", out, len(pairs), e.dataset)
	return nil
}
