// Package harvest builds golden-set queries from a query log
// (internal/querylog): logged searches are grouped by normalised text,
// given ids that stay the same on every harvest of a growing log, and
// sampled (at random, the most frequent, or with probability proportional
// to frequency), stratified by category when the log knows categories.
//
// Imports of ours: internal/querylog, internal/userfile,
// tuner/judging/labels.
package harvest
