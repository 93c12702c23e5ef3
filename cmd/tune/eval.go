package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/experiments/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runEval(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("eval", "--qrels FILE --run FILE [-m MEASURE[.PARAMS]]... [-q] [-c] [-l N] [--format trec|json|csv]\n"+
		"       tune eval [flags] QRELS RUN        (trec_eval's argument order; -l2, -mP.10 glued forms work)", a.stderr)
	qrelsPath := fs.String("qrels", "", "qrels `file` (qid iter docno rel)")
	runPath := fs.String("run", "", "run `file` (qid Q0 docno rank score tag)")
	var measures stringList
	fs.Var(&measures, "m", "`measure` to print, with optional .params (repeatable; official, all_trec, P.5,10, ndcg_cut.10, ...)")
	perQuery := fs.Bool("q", false, "print per-query values before the \"all\" lines")
	complete := fs.Bool("c", false, "average over every qrels query; queries missing from the run count as empty")
	level := fs.Int("l", treceval.DefaultRelevanceLevel, "lowest grade counted as relevant")
	format := fs.String("format", "trec", "output format: trec, json or csv")
	var positional []string
	rest := normalizeTrecArgs(args)
	for {
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(positional) == 2 && *qrelsPath == "" && *runPath == "":
		*qrelsPath, *runPath = positional[0], positional[1]
	case len(positional) != 0:
		return usageErrorf("eval: unexpected arguments %q (give --qrels FILE --run FILE, or QRELS RUN)", positional)
	}
	if *qrelsPath == "" || *runPath == "" {
		return usageErrorf("eval: --qrels and --run are both required")
	}
	if *format != "trec" && *format != "json" && *format != "csv" {
		return usageErrorf("eval: --format must be trec, json or csv (got %q)", *format)
	}
	sel, err := treceval.Select(measures)
	if err != nil {
		return inputError(fmt.Errorf("eval: %w", err))
	}
	for _, m := range sel.Missing {
		fmt.Fprintf(a.stderr, "tune eval: warning: trec_eval measure %q is not implemented; skipped\n", m)
	}
	qrels, err := trec.ReadQrelsFile(*qrelsPath)
	if err != nil {
		return inputError(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	opts := treceval.DefaultOptions()
	opts.RelevanceLevel = *level
	opts.Complete = *complete
	res, err := evaluateRunFile(ctx, qrels, *runPath, sel, opts)
	if err != nil {
		return err
	}
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(a.stderr, "tune eval: warning: %d run queries have no judgments in %s and were skipped (first: %q)\n",
			n, *qrelsPath, res.Skipped[0])
	}
	switch *format {
	case "json":
		return writeEvalJSON(a.stdout, res, *perQuery)
	case "csv":
		return writeEvalCSV(a.stdout, res, *perQuery)
	}
	return res.WriteTREC(a.stdout, *perQuery)
}

// evaluateRunFile scores the run at path while reading it, query by query,
// so memory stays flat however long the run. A run whose queries are not
// contiguous is read again whole and evaluated in one go.
func evaluateRunFile(ctx context.Context, qrels trec.Qrels, path string, sel treceval.Selection, o treceval.Options) (*treceval.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputError(fmt.Errorf("eval: %w", err))
	}
	defer f.Close()
	st, err := treceval.NewStream(qrels, sel, o)
	if err != nil {
		return nil, inputError(fmt.Errorf("eval: %w", err))
	}
	tag, err := trec.ScanRun(f, path, func(qid string, results []trec.Result) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return st.Add(qid, results)
	})
	if err != nil {
		st.Close()
		if !errors.Is(err, treceval.ErrNotGrouped) {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, inputError(err)
		}
		run, rerr := trec.ReadRunFile(path)
		if rerr != nil {
			return nil, inputError(rerr)
		}
		res, eerr := treceval.Evaluate(qrels, run, sel, o)
		if eerr != nil {
			return nil, inputError(fmt.Errorf("eval %s: %w", path, eerr))
		}
		return res, nil
	}
	res, err := st.Result(tag)
	if err != nil {
		return nil, inputError(fmt.Errorf("eval %s: %w", path, err))
	}
	return res, nil
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

func writeEvalCSV(w io.Writer, res *treceval.Result, perQuery bool) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"measure", "query", "value"})
	emit := func(col treceval.Column, qid string, v treceval.Value) {
		cw.Write([]string{col.Name, qid, string(treceval.AppendValue(nil, col.Kind, v))})
	}
	res.Each(perQuery, emit)
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("eval: write csv: %w", err)
	}
	return nil
}

// evalJSON is the --format json document. Values are numbers, except
// string measures (runid, relstring).
type evalJSON struct {
	RunID   string          `json:"runid"`
	Queries []evalJSONQuery `json:"queries,omitempty"`
	All     map[string]any  `json:"all"`
}

type evalJSONQuery struct {
	ID       string         `json:"id"`
	Measures map[string]any `json:"measures"`
}

func writeEvalJSON(w io.Writer, res *treceval.Result, perQuery bool) error {
	val := func(col treceval.Column, v treceval.Value) any {
		if col.Kind == treceval.String {
			return v.Str
		}
		if col.Kind == treceval.Int {
			return int64(v.Num)
		}
		return json.Number(strconv.FormatFloat(v.Num, 'g', -1, 64))
	}
	doc := evalJSON{RunID: res.RunID, All: map[string]any{}}
	for c, col := range res.Columns {
		if col.InAll {
			doc.All[col.Name] = val(col, res.All[c])
		}
	}
	if perQuery {
		for _, q := range res.Queries {
			m := map[string]any{}
			for c, col := range res.Columns {
				if col.PerQuery {
					m[col.Name] = val(col, q.Values[c])
				}
			}
			doc.Queries = append(doc.Queries, evalJSONQuery{ID: q.ID, Measures: m})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("eval: write json: %w", err)
	}
	return nil
}

var _ flag.Value = (*stringList)(nil)
