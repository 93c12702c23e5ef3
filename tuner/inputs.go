package tuner

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
)

// ShippedShortlist names the shipped shortlist in messages when no
// experiment file is given.
const ShippedShortlist = "shortlist.json (shipped)"

// LoadExperiments reads the experiment file, or the shipped shortlist for
// "".
func LoadExperiments(path string) (*experiments.ExperimentFile, error) {
	if path == "" {
		return experiments.ParseExperimentFile(ShippedShortlist, experiments.Shortlist)
	}
	return experiments.LoadExperimentFile(path)
}

// ExperimentsSnapshotName is the run directory's copy of the experiment
// file: experiments.yaml for YAML, experiments.json otherwise.
func ExperimentsSnapshotName(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return "experiments.yaml"
	}
	return "experiments.json"
}

// ExperimentName names the experiment file in listings: its name key, else
// its file name (the shipped shortlist's for none).
func ExperimentName(ef *experiments.ExperimentFile) string {
	if ef.Name != "" {
		return ef.Name
	}
	return ExperimentsSnapshotName(ef.Path)
}

// Snapshot writes what makes a run self-contained: the settings (as JSON,
// every value whose key looks secret redacted), the experiment file, the
// golden set's hash and a copy.
func Snapshot(run *runs.Run, settings any, ef *experiments.ExperimentFile, ds *dataset.Dataset) error {
	var m map[string]any
	data, err := runs.MarshalJSON(settings)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	// The files are written side by side: each atomically and durably,
	// their fsyncs overlapping instead of following one another.
	var errs [3]error
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = run.WriteJSON(runs.SettingsFile, secrets.RedactKeys(m)) })
	wg.Go(func() { errs[1] = run.WriteFile(ExperimentsSnapshotName(ef.Path), ef.Raw) })
	wg.Go(func() { errs[2] = ds.Snapshot(run) })
	wg.Wait()
	return errors.Join(errs[:]...)
}
