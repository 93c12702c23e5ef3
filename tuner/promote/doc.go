// Package promote puts a recorded trial's config into production safely:
// the promotion policy (Check: a significant paired improvement over the
// production config's trial or the baseline, no guarded category
// regressing), an atomic write with a backup, a restart, a health check and
// a smoke evaluation, automatic rollback on failure, and a journal of every
// promotion (promotions.jsonl) that Rollback undoes.
//
// Imports of ours: backend, backend/fusion, internal/atomicfile,
// internal/inputerr, runs, tuner/adapt, tuner/analysis, tuner/pass,
// tuner/replay, tuner/scoring.
package promote
