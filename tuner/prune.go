package tuner

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// rungSubsets lists the query subsets of successive halving: the indices
// of a seeded, category-stratified fraction f of queries, then f·η, f·η²,
// … while below the whole set. Subsets are nested, and empty or repeated
// ones are left out. The whole set is not included.
func rungSubsets(queries []scoring.Query, seed int64, p experiments.Pruning) [][]int {
	if !p.Enabled {
		return nil
	}
	ids := make([]string, len(queries))
	cats := make([]string, len(queries))
	for i, q := range queries {
		ids[i], cats[i] = q.ID, q.Category
	}
	var out [][]int
	prev := 0
	for f := p.Fraction; f < 1; f *= float64(p.ReductionFactor) {
		in := experiments.StratifiedSample(seed, ids, cats, f)
		var idx []int
		for i, ok := range in {
			if ok {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 || len(idx) == prev || len(idx) == len(queries) {
			continue
		}
		prev = len(idx)
		out = append(out, idx)
	}
	return out
}

// runStaged evaluates a trial rung by rung: on each subset it runs only the
// queries not yet run (the backend restarts at most once, for the first),
// reports the partial primary score and stops when the study prunes the
// trial (unless mayPrune is false: the experiment file's own trials always
// run to the end but still report, so they set the bar). Without subsets it
// is runTrial, which calls searched (when set) once its searches are done.
func runStaged(ctx context.Context, o Options, index int, spec experiments.TrialSpec, study *sampler.Study, p sampler.Proposal, subsets [][]int, mayPrune bool, searched func()) (trialOutcome, int, error) {
	if len(subsets) == 0 {
		rec, restarted, err := runTrial(ctx, o, index, spec, searched)
		return rec, b2i(restarted), err
	}
	all := make([]int, len(o.Queries))
	for i := range all {
		all[i] = i
	}
	results := make([]runs.QueryResult, len(o.Queries))
	ran := make([]bool, len(o.Queries))
	restarts := 0
	var rungs []runs.Rung
	for r, subset := range append(subsets, all) {
		todo := notRun(subset, ran)
		part := o
		var done func()
		if r == len(subsets) {
			done = searched // an earlier rung is followed by another on this backend
		}
		part.Queries = make([]scoring.Query, len(todo))
		for j, i := range todo {
			part.Queries[j] = o.Queries[i]
		}
		rec, restarted, err := runTrial(ctx, part, index, spec, done)
		restarts += b2i(restarted)
		if err != nil || rec.Status != runs.StatusOK {
			rec.Rungs = rungs
			return rec, restarts, err
		}
		for j, i := range todo {
			results[i], ran[i] = rec.results[j], true
		}
		s := scoreRung(&rec, o.Queries, subset, results)
		if r == len(subsets) {
			rec.Rungs = rungs
			return rec, restarts, nil
		}
		rungs = append(rungs, runs.Rung{Fraction: rec.Fraction, Queries: s.Scored, Primary: s.Primary})
		prune, err := study.Report(p, r, s.Primary)
		if err != nil {
			return rec, restarts, &studyError{fmt.Errorf("trial %q: %w", spec.Name, err)}
		}
		if prune && mayPrune {
			rec.Status = runs.StatusPruned
			rec.Rungs = rungs
			return rec, restarts, nil
		}
	}
	panic("unreachable")
}

// notRun is the queries of subset (indexes) not run yet (ran), in
// subset's order: what the next rung must still run.
func notRun(subset []int, ran []bool) []int {
	var todo []int
	for _, i := range subset {
		if !ran[i] {
			todo = append(todo, i)
		}
	}
	return todo
}

// scoreRung sets rec to the trial's score on subset (indexes into
// queries) from results, which hold every query run so far: its results,
// primary score, scorecard and breakdowns, the queries scored and failed
// (failed only under a tolerating eval.on_query_error), and the fraction
// of all queries the subset is. It returns the summary.
func scoreRung(rec *trialOutcome, queries []scoring.Query, subset []int, results []runs.QueryResult) metrics.Summary {
	qs := make([]scoring.Query, len(subset))
	batch := pass.Batch{Results: make([]runs.QueryResult, len(subset))}
	for j, i := range subset {
		qs[j], batch.Results[j] = queries[i], results[i]
	}
	s := scoring.Summarize(qs, batch.Results)
	rec.results = batch.Results
	rec.Primary, rec.Scorecard = s.Primary, s.Scorecard
	rec.Categories, rec.Difficulties, rec.Routing = s.Categories, s.Difficulties, s.Routing
	rec.TopLabels = s.TopLabels
	rec.Queries, rec.Failed, rec.OnQueryError = s.Scored, 0, ""
	for _, r := range batch.Results {
		if r.Error != "" {
			rec.Failed++
			rec.OnQueryError = r.OnError
		}
	}
	rec.Fraction = float64(len(subset)) / float64(len(queries))
	return s.Summary
}

// studyError marks a failure of the study itself (its storage), which
// stops the search, as opposed to a failed trial.
type studyError struct{ err error }

func (e *studyError) Error() string { return e.err.Error() }
func (e *studyError) Unwrap() error { return e.err }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
