// Package checkfiles is what `tune check` validates: the kinds of user
// file (experiment files, settings files, golden sets), how a file's kind
// is detected, and each kind's check, which lists every problem with its
// file:line:col and starts nothing.
//
// Imports of ours: cmd/tune/internal/settings, experiments,
// internal/inputerr, runs, tuner, tuner/dataset, tuner/scoring.
package checkfiles
