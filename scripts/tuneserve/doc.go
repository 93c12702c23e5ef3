// Package tuneserve starts `tune serve` for the benchmark and traffic
// scripts: on a free loopback port, ready once its ready file names the
// bound address.
//
// Imports of ours: none.
package tuneserve
