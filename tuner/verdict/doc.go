// Package verdict decides whether a result passes: quality gates
// ("Recall@3 >= 0.80", latency percentiles, per-category routing) checked
// on a recorded trial and recorded in its run, score.constraints and the
// objective a constrained study is told, the quality check's comparison
// with a reference run or baseline file (Against) and its failing
// queries, and how many trials failed.
//
// Imports of ours: backend, experiments, internal/atomicfile,
// internal/plainnum, metrics, metrics/stats, runs, tuner/analysis,
// tuner/dataset, tuner/replay, tuner/scoring.
package verdict
