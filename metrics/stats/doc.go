// Package stats holds the statistics fusiontune needs to say whether one
// configuration really beats another on the same queries: the Wilcoxon
// signed-rank test, a paired randomization (sign-flip) test, paired
// bootstrap intervals, multiple-comparison corrections (Holm–Bonferroni and
// Benjamini–Hochberg), bootstrap intervals of a mean, and diffs between two
// rankings (Kendall tau, Jaccard@k, top-1 changes).
//
// It is pure: plain float64 slices in, plain structs out, no I/O, and it
// imports nothing else of fusiontune. Every random choice takes an explicit
// seed, so the same inputs and seed give the same numbers. Statistical
// caveats ("too few non-zero pairs") are returned as data in Warning
// fields, never printed. Sample-size thresholds live in one struct,
// Thresholds, with DefaultThresholds.
//
// Imports of ours: none.
package stats
