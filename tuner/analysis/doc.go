// Package analysis holds the statistics and decisions over recorded
// trials: paired significance against the baseline with the family's
// correction and the decision rule (Significance), the statistics
// precomputed while trials run (Prestats), judged-only values, result keys
// (trials that rank every query alike), the comparison of two recorded
// trials (CompareRuns, CompareRefs), the held-out confirmation (Confirm),
// and `tune plan`'s power budget (PlanBudget, PlanRun).
//
// Imports of ours: backend/fusion, experiments, internal/inputerr,
// internal/parallel, internal/plainnum, metrics/stats, runs, tuner/replay,
// tuner/scoring.
package analysis
