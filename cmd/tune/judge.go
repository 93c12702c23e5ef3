package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/tuner"
)

// judgeCommand is one subcommand of `tune judge`.
type judgeCommand struct {
	name, usage, summary string
	run                  func(ctx context.Context, a *app, args []string) error
}

// judgeCommands is the dispatch table of `tune judge`, in help order.
func judgeCommands() []judgeCommand {
	return []judgeCommand{
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
	printHelp := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: tune judge %s\n\nSubcommands:\n", judgeUsage)
		for _, c := range judgeCommands() {
			fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
		}
		fmt.Fprintln(w, "\nRun 'tune judge SUBCOMMAND --help' for its flags.")
	}
	var names []string
	for _, c := range judgeCommands() {
		names = append(names, c.name)
	}
	if len(args) == 0 {
		printHelp(a.stderr)
		return usageErrorf("judge: want a subcommand (%s)", strings.Join(names, ", "))
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printHelp(a.stdout)
		return nil
	}
	for _, c := range judgeCommands() {
		if c.name == args[0] {
			return c.run(ctx, a, args[1:])
		}
	}
	if s := suggest.Closest(args[0], names); s != "" {
		return usageErrorf("judge: unknown subcommand %q (did you mean %s?); run 'tune judge --help'", args[0], s)
	}
	return usageErrorf("judge: unknown subcommand %q (want %s)", args[0], strings.Join(names, ", "))
}

// judgeEnv is what judge subcommands share: the settings, the dataset and
// its id in the label store.
type judgeEnv struct {
	s       *settings
	ds      *tuner.Dataset
	dataset string
}

// judgeFlags adds the flags every judge subcommand takes.
func judgeFlags(fs *flag.FlagSet) (config *string) {
	config = fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("dataset-id", "", "named dataset from the settings' datasets list (setting dataset_id)")
	fs.String("labels", "", "label store URL: a SQLite file or postgres://USER@HOST:PORT/DB (setting labels)")
	return config
}

// openJudgeEnv loads and checks the settings (the judge section's ranges
// included) and the dataset.
func (a *app) openJudgeEnv(config string, fs *flag.FlagSet) (*judgeEnv, error) {
	s, err := loadSettings(config, fs, map[string]string{"dataset-id": "dataset_id", "labels": "labels"})
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

// openLabelsIf opens the label store; with create false, a SQLite file
// that does not exist yet is not created and the store is nil.
func (a *app) openLabelsIf(ctx context.Context, e *judgeEnv, create bool) (*labels.Store, error) {
	url := e.s.LabelsURL()
	loc, err := labels.ParseURL(url)
	if err == nil && loc.Redacted != url {
		a.secrets.Add(passwordOf(url))
	}
	if !create && labels.Absent(url) {
		return nil, nil
	}
	st, err := labels.Open(ctx, url)
	if err != nil {
		if errors.Is(err, labels.ErrBadURL) {
			return nil, inputError(fmt.Errorf("%s: labels: %w", e.s.Src.Where("labels"), err))
		}
		return nil, err
	}
	return st, nil
}

// passwordOf returns the password of a URL ("" when none).
func passwordOf(raw string) string {
	_, rest, _ := strings.Cut(raw, "://")
	userinfo, _, ok := strings.Cut(rest, "@")
	if !ok {
		return ""
	}
	_, pw, _ := strings.Cut(userinfo, ":")
	return pw
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

func runJudgeExport(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("judge export", judgeExportUsage, a.stderr)
	config := judgeFlags(fs)
	pool := fs.String("pool", "", "pool file (tune judge pool --out FILE)")
	format := fs.String("format", judge.FormatTSV, "tsv or jsonl")
	out := fs.String("out", "", "file to write (default stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("judge export: unexpected argument %q", fs.Arg(0))
	}
	if *pool == "" {
		return usageErrorf("judge export: --pool FILE is required")
	}
	if *format != judge.FormatTSV && *format != judge.FormatJSONL {
		return usageErrorf("judge export: --format: want tsv or jsonl (got %q)", *format)
	}
	e, err := a.openJudgeEnv(*config, fs)
	if err != nil {
		return err
	}
	pairs, err := e.poolPairs(*pool)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := judge.ExportPairs(&b, e.dataset, pairs, *format); err != nil {
		return err
	}
	if *out == "" {
		_, err := a.stdout.Write(b.Bytes())
		return err
	}
	if err := atomicfile.Write(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %d pairs of dataset %q to label\n", *out, len(pairs), e.dataset)
	return nil
}
