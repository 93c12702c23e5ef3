// Package scoring scores one ranking against a query's judgments and sums
// a trial up: the evaluated Query (a golden-set query with its judgments
// resolved to document ids), the Scorer and its MetricsScorer (the
// scorecard and the composite primary score), the recorded top hits and
// their label sequence, a trial's Summary by category and difficulty, the
// golden set's Ceiling, judged-only (condensed-list) values, and the
// policies for queries whose search failed. It owns no I/O and no
// process.
//
// Imports of ours: backend, backend/fusion, experiments, metrics, runs.
package scoring
