// Package checkfiles is what `tune check` validates: the kinds of user
// file (experiment files, settings files, golden sets), how a file's kind
// is detected, and each kind's check, which lists every problem with its
// file:line:col and starts nothing. With settings (tune.yaml or --config)
// a settings file and an experiment file are checked by the code a sweep
// runs before its first trial (settings.OpenRun, settings.PrepareSweep).
//
// Imports of ours: cmd/tune/internal/settings, experiments,
// internal/inputerr, runs, tuner, tuner/dataset, tuner/scoring.
package checkfiles
