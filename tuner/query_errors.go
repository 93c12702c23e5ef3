package tuner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
)

// What a query whose search failed after its retries does to its trial
// (EvalOptions.OnQueryError).
const (
	// QueryErrorFail fails the trial (the default).
	QueryErrorFail = "fail"
	// QueryErrorZero scores the query 0 on every metric, as some
	// evaluation harnesses do; it stays in the means and paired tests.
	QueryErrorZero = "zero"
	// QueryErrorSkip leaves the query out of the trial's means and of the
	// paired tests.
	QueryErrorSkip = "skip"
)

// QueryErrorPolicies lists the valid EvalOptions.OnQueryError values.
var QueryErrorPolicies = []string{QueryErrorFail, QueryErrorZero, QueryErrorSkip}

// CheckQueryErrorPolicy returns an error unless p is a valid
// EvalOptions.OnQueryError ("" means QueryErrorFail).
func CheckQueryErrorPolicy(p string) error {
	if p == "" || slices.Contains(QueryErrorPolicies, p) {
		return nil
	}
	return fmt.Errorf("must be one of %s (got %q)", strings.Join(QueryErrorPolicies, ", "), p)
}

// tolerated reports whether policy p scores failed queries instead of
// failing the trial.
func tolerated(p string) bool { return p == QueryErrorZero || p == QueryErrorSkip }

// markQueryErrors marks the failed results under policy p (see
// runs.QueryResult.OnError) and counts them.
func markQueryErrors(results []runs.QueryResult, p string) (failed int) {
	for i := range results {
		r := &results[i]
		if r.Error == "" {
			continue
		}
		failed++
		if tolerated(p) {
			r.OnError = p
			r.Primary = 0
			r.Scores = map[string]float64{}
		}
	}
	return failed
}

// queryErrorsFail settles a scored trial with failed queries under policy
// p: under zero and skip the trial stays ok and records the policy, unless
// every query failed; otherwise it fails with the first error (first).
func (rec *trialOutcome) queryErrorsFail(p string, queries int, first string) {
	if rec.Failed == 0 {
		return
	}
	if tolerated(p) && rec.Failed < queries {
		rec.OnQueryError = p
		return
	}
	rec.Status = runs.StatusFailed
	rec.Error = fmt.Sprintf("%d of %d queries failed (first: %s)", rec.Failed, queries, first)
}
