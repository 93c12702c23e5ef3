package tuner

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
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
func Snapshot(run *runs.Run, settings any, ef *experiments.ExperimentFile, ds *Dataset) error {
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

// DefaultSplitMinQueries is the number of judged queries from which a sweep
// selects on the dev split and confirms on the held-out test split by
// default (dataset.split unset); see README "Select, then confirm".
const DefaultSplitMinQueries = 100

// OpenSweepDataset opens a sweep's golden set (see OpenDataset). When
// splitGiven is false (dataset.split not set) and the set has at least
// DefaultSplitMinQueries judged queries, it splits it: the sweep tunes on
// dev, and the winner is confirmed on test; judged is then the number of
// judged queries (0 when it did not split).
func OpenSweepDataset(d experiments.DatasetConfig, splitGiven bool, corpusFallback, cacheDir string) (ds *Dataset, judged int, err error) {
	ds, err = OpenDataset(d, corpusFallback, cacheDir)
	if err != nil || splitGiven {
		return ds, 0, err
	}
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			judged++
		}
	}
	if judged < DefaultSplitMinQueries {
		return ds, 0, nil
	}
	d.Split = experiments.SplitDev
	if ds, err = OpenDataset(d, corpusFallback, cacheDir); err != nil {
		return nil, 0, err
	}
	return ds, judged, nil
}

// HeldOutQueries returns Config.HeldOut for a sweep on the dev split of d: the
// test split's queries. After the trials, the test split failing to open
// fails the run (not an input error).
func HeldOutQueries(d experiments.DatasetConfig, corpusFallback, cacheDir string) func() ([]scoring.Query, error) {
	return func() ([]scoring.Query, error) {
		test := d
		test.Split = experiments.SplitTest
		ds, err := OpenDataset(test, corpusFallback, cacheDir)
		var ie *inputerr.Error
		if errors.As(err, &ie) {
			err = ie.Err
		}
		if err != nil {
			return nil, err
		}
		return ds.Queries, nil
	}
}
