// Package sweeptest runs sweeps for tests through the library as `tune
// sweep` wires them, without a process: a directory's tune.yaml
// (internal/settings) and an experiment file become a tuner.Config, and
// tuner.Run runs it. Tests of a backend kind, of replay or of a shared
// study that do not need process-level behaviour (exit codes, signals)
// use it from the package that owns the behaviour; cmd/tune keeps the
// end-to-end tests through the binary. It also reads the README's
// settings blocks marked for tests.
package sweeptest
