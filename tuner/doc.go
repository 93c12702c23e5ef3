// Package tuner runs tuning: Run owns one run's whole lifecycle (create or
// resume it, snapshot its inputs, execute every trial, score the held-out
// split, build the leaderboard with significance, write the report and
// timings, check the gates), and PromoteTrial hands the winner to the
// production config safely.
//
// Every way of running trials is one loop (loop.go) over a source of
// trials — a fixed plan (Sweep), a sampler study (Search, see package
// tuner/sampler), a shared study's claim queue (SearchShared) — and an
// evaluator chosen once: live (rung by rung with pruning when the study
// prunes) or replay, which collects each retriever's candidate lists once
// per replay group, fuses every query-time variant offline with
// backend/fusion (replay*.go) and verifies the best live. A replayed trial
// keeps only its summary; Deriver gives runs the per-query results it
// derives from the stored collection.
package tuner
