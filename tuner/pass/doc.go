// Package pass runs the golden set's queries over a backend: Pass is one
// pass of every query searched and scored (one by one with retries and
// timeouts, or in one batch), and Start puts a configuration on a backend
// (apply, restart when it changed, ready). Every live evaluation of a
// configuration is a Pass — a trial, a replay's collection and
// verification, the pre-flight, the held-out estimate, latency, the
// promotion's smoke check. It also holds the TimedBackend, which measures
// where a run's time goes, and Phases, its optional finer marks, and
// SearchAll/SearchFile, a pass that writes a TREC run (`tune search`).
//
// Imports of ours: backend, backend/engine, backend/fusion, experiments,
// internal/inputerr, internal/trec, internal/userfile, runs, tuner/scoring.
package pass
