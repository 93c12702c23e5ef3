// Package metrics holds pure functions from a ranking and graded judgments to
// numbers: the IR measures, scorecards, the composite primary score and their
// aggregation over queries. It does no I/O and imports nothing else of
// fusiontune.
package metrics
