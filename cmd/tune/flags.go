package main

import "github.com/fusiontune/fusiontune/cmd/tune/internal/cli"

// The flags many commands share, bound to their settings keys.
var (
	configFlag    = cli.String("config", "", "settings file (default ./tune.yaml when present)")
	runsDirFlag   = cli.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)").Bind("runs_dir")
	datasetIDFlag = cli.String("dataset-id", "", "named dataset from the settings' datasets list (setting dataset_id)").Bind("dataset_id")
	labelsFlag    = cli.String("labels", "", "label store URL: a SQLite file or postgres://USER@HOST:PORT/DB (setting labels)").Bind("labels")
	textJSONFlag  = cli.String("format", "text", "text or json").OneOf("text", "json")
	outFileFlag   = cli.String("out", "", "file to write (default stdout)")
)

// settingsOf merges and validates the settings for a parsed command line:
// --config names the file, the flags bound to keys override them.
func settingsOf(p *cli.Parsed) (*settings, error) {
	return loadSettings(p.Str("config"), p.FlagSet, p.Keys())
}
