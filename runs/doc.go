// Package runs is the on-disk record of tuning runs: run directories,
// snapshots, per-trial records, leaderboards and reports.
package runs
