package main

import (
	"context"
	"flag"
	"slices"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"

	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// evalFlags are tune eval's parsed arguments.
type evalFlags struct {
	qrels, run, format string
	measures           []string
	perQuery, complete bool
	level              int
}

func runEval(ctx context.Context, a *app, args []string) error {
	f, err := parseEvalFlags(a, args)
	if err != nil {
		return err
	}
	res, err := treceval.EvaluatePaths(ctx, f.qrels, f.run, f.measures, f.level, f.complete, a.stderr)
	if err != nil {
		if ctx.Err() != nil {
			return err // interrupted
		}
		return inputError(err)
	}
	return res.Write(a.stdout, f.format, f.perQuery)
}

var evalSpec = cli.Spec{Name: "eval", Usage: "--qrels FILE --run FILE [-m MEASURE[.PARAMS]]... [-q] [-c] [-l N] [--format trec|json|csv]\n" +
	"       tune eval [flags] QRELS RUN        (trec_eval's argument order; -l2, -mP.10 glued forms work)", Flags: []cli.Flag{
	cli.String("qrels", "", "qrels `file` (qid iter docno rel)"),
	cli.String("run", "", "run `file` (qid Q0 docno rank score tag)"),
	cli.Value("m", func() flag.Value { return new(cli.StringList) }, "`measure` to print, with optional .params (repeatable; official, all_trec, P.5,10, ndcg_cut.10, ...)"),
	cli.Bool("q", false, "print per-query values before the \"all\" lines"),
	cli.Bool("c", false, "average over every qrels query; queries missing from the run count as empty"),
	cli.Int("l", treceval.DefaultRelevanceLevel, "lowest grade counted as relevant"),
	cli.String("format", "trec", "output format: trec, json or csv")}}

// parseEvalFlags reads tune eval's flags, in its own order or trec_eval's.
func parseEvalFlags(a *app, args []string) (*evalFlags, error) {
	spec := evalSpec
	spec.Examples = examples(spec.Name)
	fs := spec.FlagSet(a.stderr)
	var positional []string
	rest := treceval.SplitGluedArgs(args)
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	f := &evalFlags{qrels: fs.Str("qrels"), run: fs.Str("run"), measures: *fs.Value("m").(*cli.StringList),
		perQuery: fs.Bool("q"), complete: fs.Bool("c"), level: fs.Int("l"), format: fs.Str("format")}
	switch {
	case len(positional) == 2 && f.qrels == "" && f.run == "":
		f.qrels, f.run = positional[0], positional[1]
	case len(positional) != 0:
		return nil, usageErrorf("eval: unexpected arguments %q (give --qrels FILE --run FILE, or QRELS RUN)", positional)
	}
	if f.qrels == "" || f.run == "" {
		return nil, usageErrorf("eval: --qrels and --run are both required")
	}
	if !slices.Contains(treceval.Formats, f.format) {
		return nil, usageErrorf("eval: --format must be trec, json or csv (got %q)", f.format)
	}
	return f, nil
}
