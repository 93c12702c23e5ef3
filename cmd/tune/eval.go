package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// evalFlags are tune eval's parsed arguments.
type evalFlags struct {
	qrels, run, format string
	measures           stringList
	perQuery, complete bool
	level              int
}

func runEval(ctx context.Context, a *app, args []string) error {
	f, err := parseEvalFlags(a, args)
	if err != nil {
		return err
	}
	sel, err := treceval.Select(f.measures)
	if err != nil {
		return inputError(fmt.Errorf("eval: %w", err))
	}
	for _, m := range sel.Missing {
		fmt.Fprintf(a.stderr, "tune eval: warning: trec_eval measure %q is not implemented; skipped\n", m)
	}
	qrels, err := trec.ReadQrelsFile(f.qrels)
	if err != nil {
		return inputError(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	opts := treceval.DefaultOptions()
	opts.RelevanceLevel = f.level
	opts.Complete = f.complete
	res, err := treceval.EvaluateFile(ctx, qrels, f.run, sel, opts)
	if err != nil {
		if ctx.Err() != nil {
			return err // interrupted
		}
		return inputError(err)
	}
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(a.stderr, "tune eval: warning: %d run queries have no judgments in %s and were skipped (first: %q)\n",
			n, f.qrels, res.Skipped[0])
	}
	return res.Write(a.stdout, f.format, f.perQuery)
}

// parseEvalFlags reads tune eval's flags, in its own order or trec_eval's.
func parseEvalFlags(a *app, args []string) (*evalFlags, error) {
	fs := newFlagSet("eval", "--qrels FILE --run FILE [-m MEASURE[.PARAMS]]... [-q] [-c] [-l N] [--format trec|json|csv]\n"+
		"       tune eval [flags] QRELS RUN        (trec_eval's argument order; -l2, -mP.10 glued forms work)", a.stderr)
	f := &evalFlags{}
	fs.StringVar(&f.qrels, "qrels", "", "qrels `file` (qid iter docno rel)")
	fs.StringVar(&f.run, "run", "", "run `file` (qid Q0 docno rank score tag)")
	fs.Var(&f.measures, "m", "`measure` to print, with optional .params (repeatable; official, all_trec, P.5,10, ndcg_cut.10, ...)")
	fs.BoolVar(&f.perQuery, "q", false, "print per-query values before the \"all\" lines")
	fs.BoolVar(&f.complete, "c", false, "average over every qrels query; queries missing from the run count as empty")
	fs.IntVar(&f.level, "l", treceval.DefaultRelevanceLevel, "lowest grade counted as relevant")
	fs.StringVar(&f.format, "format", "trec", "output format: trec, json or csv")
	var positional []string
	rest := normalizeTrecArgs(args)
	for {
		if err := parseFlags(fs, rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
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

// normalizeTrecArgs splits trec_eval's glued flags ("-l2", "-mP.10") into
// the flag and its value, so the flag package can read them.
func normalizeTrecArgs(args []string) []string {
	out := make([]string, 0, len(args)+4)
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && (a[1] == 'm' || a[1] == 'l') && a[2] != '=' {
			out = append(out, a[:2], a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

var _ flag.Value = (*stringList)(nil)
