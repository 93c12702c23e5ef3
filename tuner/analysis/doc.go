// Package analysis holds the statistics and decisions over recorded
// trials: paired significance against the baseline with the family's
// correction and the decision rule (Significance), the statistics
// precomputed while trials run (Prestats), judged-only values, result keys
// (trials that rank every query alike), the comparison of two recorded
// trials (CompareRuns, CompareRefs), the held-out confirmation (Confirm),
// and `tune plan`'s power budget (PlanBudget, PlanRun).
//
// It reads trials through runs (a replayed trial's results derived by
// tuner/replay), scores with tuner/scoring and tests with metrics/stats;
// it runs nothing on a backend and imports nothing of tuner.
package analysis
