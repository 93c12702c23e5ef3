package judging

import (
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
)

// RunRequest asks Run to judge a pool's pairs.
type RunRequest struct {
	// Pool is the pool file (tune judge pool --out FILE).
	Pool string
	// Judge is "llm", "file:PATH" (judge.ParseSpec) or "ensemble"
	// (EnsembleSpec).
	Judge string
	// DryRun says what judging would cost: nothing is called, no store
	// is created, nothing is written.
	DryRun bool
	// Refresh judges every pair of the pool again, those the judge has
	// labelled included, asking the LLM judge's server anew (its answer
	// cache is neither read nor written); the new labels are newer, so
	// they win.
	Refresh bool
	// Log receives the plan: the pool's pairs, how many the judge has
	// labelled, how many are left.
	Log io.Writer
}

// RunResult is what Run judged and appended, or in a dry run what it
// would cost.
type RunResult struct {
	// Dataset is the dataset's id; Judge the judge's name; Store the
	// label store's redacted location ("" in a dry run).
	Dataset, Judge, Store string
	// Todo counts the pairs the judge had not labelled.
	Todo int
	// Appended is what judging appended (not in a dry run).
	Appended judge.Appended
	// Usage is the LLM judge's calls and tokens (nil for a file judge).
	Usage *llm.Usage
	// Skipped are the LLM judges' batches left without a label, their
	// answers still malformed after the judge asked again.
	Skipped []llm.Skip
	// Vote and Members, for an ensemble: how it votes, and each member's
	// agreement with it over the pairs it labelled.
	Vote    string
	Members []judge.Report
	// DryRun is the dry run's estimate (nil without --dry-run).
	DryRun *DryRun
}

// DryRun is what judging would cost.
type DryRun struct {
	// Labels counts the pairs a file judge would label (file judges only).
	Labels int
	// Estimate is the LLM judge's cost (nil for a file judge); Batch its
	// documents per call and Budget its bound.
	Estimate *llm.Estimate
	Batch    int
	Budget   llm.Budget
}

// Run judges the pool's pairs that the judge has not labelled yet and
// appends the labels to the store. When the LLM judge's budget runs out
// the labels judged so far are appended (Appended.Spent says so); any
// other failure appends nothing (the answers received stay cached).
func Run(ctx context.Context, e *Env, r RunRequest) (*RunResult, error) {
	pairs, err := e.PoolPairs(r.Pool)
	if err != nil {
		return nil, err
	}
	// A dry run creates no store: without one there is no cache to read.
	st, err := e.OpenStore(ctx, !r.DryRun)
	if err != nil {
		return nil, err
	}
	if st != nil {
		defer st.Close()
	}
	j, ljs, err := e.Judge(r.Judge, st)
	if err != nil {
		return nil, err
	}
	todo := pairs
	if r.Refresh {
		for _, lj := range ljs {
			lj.SetFresh(true)
		}
	} else if todo, err = judge.Todo(ctx, st, e.ID, pairs, j); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Log, "pool %s: %d pairs, %d already labelled by %s, %d to judge\n", r.Pool, len(pairs), len(pairs)-len(todo), j.Name(), len(todo))
	res := &RunResult{Dataset: e.ID, Judge: j.Name(), Todo: len(todo)}
	if r.DryRun {
		res.DryRun, err = e.dryRun(ctx, j, ljs, todo)
		return res, err
	}
	if res.Appended, err = judge.JudgeInto(ctx, j, st, todo); err != nil {
		return nil, err
	}
	res.Store = st.Location.Redacted
	if len(ljs) > 0 {
		u := ljs[0].Usage() // an ensemble's members share one budget
		u.CacheHits = 0
		for _, lj := range ljs {
			u.CacheHits += lj.Usage().CacheHits
			res.Skipped = append(res.Skipped, lj.Skipped()...)
		}
		res.Usage = &u
	}
	if en, ok := j.(*judge.Ensemble); ok {
		res.Vote, res.Members = en.Vote(), en.Agreements()
	}
	return res, nil
}

// dryRun says what judging todo would cost, calling nothing: the LLM
// judges' estimates summed (an ensemble's members each judge every pair).
func (e *Env) dryRun(ctx context.Context, j judge.Judge, ljs []*llm.Judge, todo []judge.Pair) (*DryRun, error) {
	if len(ljs) == 0 {
		ls, err := j.Judge(ctx, todo) // a file judge reads only its file
		if err != nil {
			return nil, err
		}
		return &DryRun{Labels: len(ls)}, nil
	}
	var sum llm.Estimate
	for _, lj := range ljs {
		est, err := lj.Estimate(ctx, todo)
		if err != nil {
			return nil, err
		}
		sum.Pairs, sum.Cached, sum.Calls = sum.Pairs+est.Pairs, sum.Cached+est.Cached, sum.Calls+est.Calls
		sum.TokensBound, sum.TokensGuess = sum.TokensBound+est.TokensBound, sum.TokensGuess+est.TokensGuess
	}
	return &DryRun{Estimate: &sum, Batch: e.Batch, Budget: e.Budget}, nil
}

// WriteText writes the outcome: on out, what was appended (with the LLM
// judge's calls and tokens, and the pairs skipped) or the dry run's cost;
// on log, a warning naming each batch skipped for malformed answers, a
// warning when calls reported more tokens than their bound and a note
// when the budget ran out.
func (r *RunResult) WriteText(out, log io.Writer) {
	if d := r.DryRun; d != nil {
		d.writeText(out, r.Judge, r.Todo)
		return
	}
	fmt.Fprintf(out, "appended %d labels of dataset %q by %s to %s", len(r.Appended.Labels), r.Dataset, r.Judge, r.Store)
	if u := r.Usage; u != nil {
		fmt.Fprintf(out, " (%d calls, %d tokens, %d from the cache", u.Calls, u.Tokens, u.CacheHits)
		if n := skippedPairs(r.Skipped); n > 0 {
			fmt.Fprintf(out, "; %d pairs skipped: malformed answers", n)
		}
		fmt.Fprint(out, ")")
		for _, s := range r.Skipped {
			fmt.Fprintf(log, "warning: %s\n", s)
		}
		if u.OverBound > 0 {
			fmt.Fprintf(log, "warning: %d calls reported more tokens than their bound (a tokenizer using more tokens than bytes): the budget may be exceeded\n", u.OverBound)
		}
	}
	fmt.Fprintln(out)
	if len(r.Members) > 0 {
		fmt.Fprintf(out, "each member against the ensemble (%s vote):\n", r.Vote)
		for _, m := range r.Members {
			if a := m.Overall; a.N > 0 {
				fmt.Fprintf(out, "  %s: %d pairs, exact agreement %.4f, weighted kappa %s (quadratic), %s (linear)\n",
					m.Judge, a.N, a.Exact, kappaText(a.KappaQuadratic), kappaText(a.KappaLinear))
			} else {
				fmt.Fprintf(out, "  %s: no pairs\n", m.Judge)
			}
		}
	}
	if r.Appended.Spent != nil {
		fmt.Fprintf(log, "note: %v\nthe %d pairs left stay for another run\n", r.Appended.Spent, r.Todo-len(r.Appended.Labels))
	}
}

// writeText writes the dry run's cost of judging todo pairs with judge.
func (d *DryRun) writeText(w io.Writer, judge string, todo int) {
	est := d.Estimate
	if est == nil {
		fmt.Fprintf(w, "dry run: %s would label %d of the %d pairs; nothing written\n", judge, d.Labels, todo)
		return
	}
	fmt.Fprintf(w, "dry run: %s: %d pairs, %d answered by the cache; %d calls of up to %d documents; tokens at most %d (what the budget reserves), about %d typically\n",
		judge, est.Pairs, est.Cached, est.Calls, d.Batch, est.TokensBound, est.TokensGuess)
	fmt.Fprintln(w, d.Budget.Verdict(*est))
}

// skippedPairs counts the pairs of skips.
func skippedPairs(skips []llm.Skip) int {
	n := 0
	for _, s := range skips {
		n += len(s.Docs)
	}
	return n
}
