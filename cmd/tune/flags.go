package main

import (
	"encoding/json"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

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
// --config names the file, the flags bound to keys override them. The
// password of every URL they hold (a label store, a judge, a service)
// joins the secrets redacted from everything the command writes.
func (a *app) settingsOf(p *cli.Parsed) (*settings, error) {
	s, err := loadSettings(p.Str("config"), p.FlagSet, p.Keys())
	if err != nil {
		return nil, err
	}
	data, err := runs.MarshalJSON(s.Settings)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	a.secrets.AddURLPasswordsIn(v)
	return s, nil
}
