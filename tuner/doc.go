// Package tuner plans and executes tuning runs: it groups trials by
// index-time parameters, applies each configuration to a backend, runs the
// batch evaluation, scores it and records it, and promotes the winner.
//
// Sweep runs the experiment file's fixed trials. Search runs a sampler
// study on top of them: a Study (goptuna, storage pluggable through
// StudyOptions) proposes trials by Ask, takes partial scores on growing
// query subsets by Report (successive-halving pruning) and outcomes by
// Tell; a resumed run replays its recorded trials into the study.
//
// With ReplayOptions, Sweep collects each retriever's candidate lists once
// per group and fuses every query-time variant offline (replay.go),
// verifying the best live (replay_verify.go).
package tuner
