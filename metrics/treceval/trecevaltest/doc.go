// Package trecevaltest holds trec_eval 10.0's own test cases (the commands
// behind the expected outputs in ../shared/data/trec_eval) and the line
// comparison the parity tests of treceval and `tune eval` share.
//
// Imports of ours: metrics/treceval.
package trecevaltest
