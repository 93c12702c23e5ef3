// Package tuner runs tuning: Run owns one run's whole lifecycle — create
// or resume the run and snapshot its inputs, open its backends, run the
// pre-flight, execute every trial, score the held-out split, measure
// latency, then build the leaderboard with significance, write the report
// and the timings, and check the gates.
//
// Every way of running trials is one loop (loop.go) over a source of
// trials — a fixed plan (Sweep), a sampler study (Search, see
// tuner/sampler), a shared study's claim queue (SearchShared, one run
// source among the others in Run) — and an evaluator chosen once: live
// (rung by rung with pruning when the study prunes) or replay, which
// collects each retriever's candidate lists once per replay group, fuses
// every query-time variant offline (tuner/replay) and verifies the best
// live. Trials that build the same index and answer alike reuse one
// another's results. Concurrency wraps or observes the loop: records are
// made durable behind it (runs.Recorder), the next trial's backend starts
// ahead through a backend wrapper, and the statistics of recorded trials
// are computed in the background (Options.Stats).
//
// The lifecycle uses its subpackages, never the reverse: tuner/pass (a
// pass of the queries over a backend), tuner/scoring, tuner/replay,
// tuner/analysis (statistics and decisions), tuner/verdict (gates,
// constraints, references), tuner/dataset (the golden set), tuner/judging
// (judges, pools, labels), tuner/sampler, tuner/studystore, tuner/adapt,
// tuner/promote and tuner/shadow.
//
// Imports of ours: backend, backend/fusion, backend/kinds, experiments,
// internal/inputerr, internal/parallel, internal/secrets, internal/userfile,
// metrics, metrics/stats, runs, runs/report, tuner/analysis, tuner/dataset,
// tuner/judging, tuner/pass, tuner/replay, tuner/sampler, tuner/scoring,
// tuner/studystore, tuner/verdict.
package tuner
