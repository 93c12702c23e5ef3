// Package fusion merges the ranked candidate lists of several retrievers into
// one ranking: reciprocal rank fusion, weighted combination of normalized
// scores, CombSUM and CombMNZ. The functions are pure and deterministic (ties
// break by id) and are shared by the embedded engine and by the tuner's
// offline replay, so both rank identically.
package fusion
