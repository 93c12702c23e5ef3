// Package adapt learns query-adaptive fusion policies (fusion.Policy) from
// a trial × query matrix: for every query, the score of every arm (a
// query-time fusion setting) and the query's pre-fusion features. The
// learner is deliberately simple — a shallow decision tree whose leaves
// take the arm with the best total score of their training queries, split
// only where each side keeps a minimum number of queries — and it is judged
// by k-fold cross-validation over queries against the best global setting
// and the per-query oracle. Run is `tune adapt`: it builds the matrix of
// every replay group of a recorded run from its collection (tuner/replay),
// learns and cross-validates a policy per group, and Render and Output
// report and write it.
//
// Imports of ours: backend/fusion, internal/atomicfile, internal/inputerr,
// metrics/stats, runs, tuner/replay.
package adapt
