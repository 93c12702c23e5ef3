package scoring

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

// Tolerated reports whether policy p scores failed queries instead of
// failing the trial.
func Tolerated(p string) bool { return p == QueryErrorZero || p == QueryErrorSkip }

// MarkQueryErrors marks the failed results under policy p (see
// runs.QueryResult.OnError) and counts them.
func MarkQueryErrors(results []runs.QueryResult, p string) (failed int) {
	for i := range results {
		r := &results[i]
		if r.Error == "" {
			continue
		}
		failed++
		if Tolerated(p) {
			r.OnError = p
			r.Primary = 0
			r.Scores = map[string]float64{}
		}
	}
	return failed
}
