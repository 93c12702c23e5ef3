// Package sweeptest runs sweeps for tests through the library as `tune
// sweep` wires them, without a process: a directory's tune.yaml (package
// settings) and an experiment file become a tuner.Config, and tuner.Run
// runs it. Its own tests are the sweep-level tests of the library as the
// command wires it: held-out splits, judge-as-you-tune, reuse, studies,
// promotion policy, and the postgres and weaviate kinds' sweeps and
// promotions against real servers. They need no process-level behaviour
// (exit codes, signals): cmd/tune keeps the end-to-end tests through the
// built binary. It also reads the manual's settings blocks marked for
// tests (README.md and docs/).
//
// Imports of ours: cmd/tune/internal/settings, runs, tuner, tuner/promote.
package sweeptest
