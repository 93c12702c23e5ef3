// Package tuner plans and executes tuning runs: it groups trials by
// index-time parameters, applies each configuration to a backend, runs the
// batch evaluation, scores it and records it, and promotes the winner.
package tuner
