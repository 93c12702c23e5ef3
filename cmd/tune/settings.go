package main

import (
	"flag"

	tunesettings "github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
)

// settings is tune's configuration (cmd/tune/internal/settings), merged in the
// documented order: defaults < settings file (tune.yaml or --config) <
// FUSIONTUNE_* environment variables < flags. A command that needs a
// block of its own adds one field here pointing at a struct type in its
// own file; the settings file is checked against it too.
type settings struct {
	tunesettings.Settings `mapstructure:",squash"`
}

// defaultRunsDir is the runs directory when runs_dir is not set.
const defaultRunsDir = tunesettings.DefaultRunsDir

// loadSettings merges and validates the settings (tunesettings.Load): file
// is --config ("" reads ./tune.yaml when it exists), flags set on fs
// override the keys flagKeys binds them to (runs-dir -> runs_dir). Every
// error is an input error (exit 2).
func loadSettings(file string, fs *flag.FlagSet, flagKeys map[string]string) (*settings, error) {
	var s settings
	if err := tunesettings.Load(&s, &s.Settings, file, fs, flagKeys); err != nil {
		return nil, inputError(err)
	}
	return &s, nil
}
