package main

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/cli"

	tunesettings "github.com/fusiontune/fusiontune/internal/settings"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/experiments/judge/llm"
	"github.com/fusiontune/fusiontune/experiments/labels"
)

const judgeRunUsage = `--pool FILE [--judge llm|file:PATH] [--dry-run] [--budget-calls N] [--budget-tokens N] [--concurrency N] [--config tune.yaml]

Judges the pool's pairs (tune judge pool --out FILE) that the judge has not
labelled yet and appends the labels to the label store.

--judge llm asks the OpenAI-compatible server of the settings' judge
section (url, model, api_key_env, prompt, batch, concurrency, timeout,
retries, budget); answers are cached in the store, so a re-run costs
nothing. --dry-run prints the calls and tokens it would take and writes
nothing. The budget (flags over judge.budget; 0: no bound) is never
exceeded: when it runs out, the labels judged so far are appended and the
rest is left for another run. Any other failure appends nothing (the
answers received stay cached) and exits 1.

--judge file:PATH labels the pairs a qrels file (TREC or BEIR tsv) judges,
as judge "file:<basename>".`

var judgeRunSpec = judgeSpec("run", judgeRunUsage,
	cli.String("pool", "", "pool file (tune judge pool --out FILE)").Required(),
	cli.String("judge", "llm", "llm, or file:PATH (a qrels file)"),
	cli.Bool("dry-run", false, "print what judging would cost; call nothing, write nothing"),
	cli.Int64("budget-calls", 0, "most calls, retries included (0: no bound; setting judge.budget.calls)").Range(0, tunesettings.MaxJudgeBudget),
	cli.Int64("budget-tokens", 0, "most tokens (0: no bound; setting judge.budget.tokens)").Range(0, tunesettings.MaxJudgeBudget),
	cli.Int("concurrency", llm.DefaultConcurrency, fmt.Sprintf("calls at once, 1..%d (setting judge.concurrency)", llm.MaxConcurrency)).Range(1, llm.MaxConcurrency))

// parseJudgeRun parses and checks the flags of `tune judge run`.
func (a *app) parseJudgeRun(args []string) (*cli.Parsed, error) {
	fs, err := a.parse(judgeRunSpec, args)
	if err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usageErrorf("judge run: unexpected argument %q", fs.Arg(0))
	}
	return fs, nil
}

// overrideJudge sets the judge settings the flags name.
func overrideJudge(fs *cli.Parsed, js *tunesettings.Judge) {
	if fs.Given("budget-calls") {
		js.Budget.Calls = ptr(fs.Int64("budget-calls"))
	}
	if fs.Given("budget-tokens") {
		js.Budget.Tokens = ptr(fs.Int64("budget-tokens"))
	}
	if fs.Given("concurrency") {
		js.Concurrency = ptr(fs.Int("concurrency"))
	}
}

func runJudgeRun(ctx context.Context, a *app, args []string) error {
	fs, err := a.parseJudgeRun(args)
	if err != nil {
		return err
	}
	e, err := a.openJudgeEnv(fs)
	if err != nil {
		return err
	}
	overrideJudge(fs, &e.s.Judge)
	poolFile, dryRun := fs.Str("pool"), fs.Bool("dry-run")
	pairs, err := e.poolPairs(poolFile)
	if err != nil {
		return err
	}
	// A dry run creates no store: without one there is no cache to read.
	st, err := a.openLabelsIf(ctx, e, !dryRun)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	j, lj, err := a.pickJudge(e, st, fs.Str("judge"))
	if err != nil {
		return err
	}
	todo, err := judge.Todo(ctx, st, e.dataset, pairs, j)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "pool %s: %d pairs, %d already labelled by %s, %d to judge\n", poolFile, len(pairs), len(pairs)-len(todo), j.Name(), len(todo))
	if dryRun {
		return a.judgeDryRun(ctx, e, j, lj, todo)
	}
	got, err := judge.JudgeInto(ctx, j, st, todo)
	if err != nil {
		return err
	}
	a.reportJudged(e, j, lj, st, got, len(todo))
	return nil
}

// pickJudge returns the judge --judge names (lj: the same, when it is
// the llm judge).
func (a *app) pickJudge(e *judgeEnv, st *labels.Store, which string) (j judge.Judge, lj *llm.Judge, err error) {
	path, isFile, err := tunesettings.FileJudgePath(which)
	switch {
	case err != nil:
		return nil, nil, usageErrorf("judge run: --judge: %v", err)
	case isFile:
		_, known := e.queries()
		f, err := judge.NewFile(e.dataset, path, known)
		return f, nil, inputError(err)
	}
	if lj, err = a.llmJudge(e, st); err != nil {
		return nil, nil, err
	}
	return lj, lj, nil
}

// reportJudged prints what judging appended and spent.
func (a *app) reportJudged(e *judgeEnv, j judge.Judge, lj *llm.Judge, st *labels.Store, got judge.Appended, todo int) {
	fmt.Fprintf(a.stdout, "appended %d labels of dataset %q by %s to %s", len(got.Labels), e.dataset, j.Name(), st.Location.Redacted)
	if lj != nil {
		u := lj.Usage()
		fmt.Fprintf(a.stdout, " (%d calls, %d tokens, %d from the cache)", u.Calls, u.Tokens, u.CacheHits)
		if u.OverBound > 0 {
			fmt.Fprintf(a.stderr, "warning: %d calls reported more tokens than their bound (a tokenizer using more tokens than bytes): the budget may be exceeded\n", u.OverBound)
		}
	}
	fmt.Fprintln(a.stdout)
	if got.Spent != nil {
		fmt.Fprintf(a.stderr, "note: %v\nthe %d pairs left stay for another run\n", got.Spent, todo-len(got.Labels))
	}
}

// llmJudge builds the LLM judge from the settings' judge section
// (Settings.LLMJudge).
func (a *app) llmJudge(e *judgeEnv, st *labels.Store) (*llm.Judge, error) {
	j, err := e.s.LLMJudge(e.dataset, e.ds.Golden.Scale.Max, st, a.secrets)
	return j, runError(err)
}

// judgeDryRun prints what judging todo would cost, calling nothing.
func (a *app) judgeDryRun(ctx context.Context, e *judgeEnv, j judge.Judge, lj *llm.Judge, todo []judge.Pair) error {
	if lj == nil {
		ls, err := j.Judge(ctx, todo) // a file judge reads only its file
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "dry run: %s would label %d of the %d pairs; nothing written\n", j.Name(), len(ls), len(todo))
		return nil
	}
	est, err := lj.Estimate(ctx, todo)
	if err != nil {
		return err
	}
	js := e.s.Judge
	fmt.Fprintf(a.stdout, "dry run: %s: %d pairs, %d answered by the cache; %d calls of up to %d documents; tokens at most %d (what the budget reserves), about %d typically\n",
		lj.Name(), est.Pairs, est.Cached, est.Calls, tunesettings.Or(js.Batch, llm.DefaultBatch), est.TokensBound, est.TokensGuess)
	b := llm.Budget{Calls: tunesettings.Or(js.Budget.Calls, 0), Tokens: tunesettings.Or(js.Budget.Tokens, 0)}
	fmt.Fprintln(a.stdout, b.Verdict(est))
	return nil
}
