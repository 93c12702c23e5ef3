// Package runs is the on-disk record of tuning runs: run directories,
// snapshots, per-trial records, leaderboards and reports.
//
// Imports of ours: internal/atomicfile, internal/inputerr,
// internal/paramtext, internal/plainnum, internal/secrets, internal/table.
package runs
