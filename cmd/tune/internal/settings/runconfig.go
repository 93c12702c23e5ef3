package settings

import (
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// RunConfig reads and checks what a run of the experiment file ef needs
// from the settings, before any run directory exists or any backend
// starts (OpenRun). It returns the run's tuner.Config with those filled
// in (tool names the manifest's tool; the caller adds the trials, study,
// replay and the rest) and the dataset. Notes and warnings go to log;
// secrets the settings name join r. The user's errors are input errors
// (inputerr.Error).
func (s *Settings) RunConfig(ef *experiments.ExperimentFile, tool string, r *runs.Redactor, log io.Writer) (*tuner.Config, *dataset.Dataset, error) {
	o, err := s.OpenRun(r, log)
	if err != nil {
		return nil, nil, err
	}
	ds := o.Dataset
	return &tuner.Config{
		Manifest: runs.Manifest{Experiments: ef.Hash, ExperimentName: tuner.ExperimentName(ef), GoldenHash: ds.Golden.Hash, Backend: s.Backend.Kind, Seed: ef.Seed, Tool: tool},
		Snapshot: func(run *runs.Run) error { return tuner.Snapshot(run, s, ef, ds) },
		Queries:  ds.Queries, Dataset: ds.Describe(), Filter: s.Filter,
		Scorer: o.Scorer, Eval: s.Eval.Options(),
		FailureBudget: s.Eval.FailureBudget, MaxConsecutiveFailures: s.Eval.MaxConsecutiveFailures,
		Backend: o.Factory, Stats: s.StatsOptions(ef.Seed), Gates: s.ParsedGates,
	}, ds, nil
}

// Opened is what OpenRun read: the golden set, its scorer and the
// backend factory.
type Opened struct {
	Dataset *dataset.Dataset
	Scorer  *scoring.MetricsScorer
	Factory backend.Factory
}

// OpenRun reads and checks, before any run directory exists or any
// backend starts, what every run of the settings needs: the golden set
// (split into dev and test by OpenRunDataset), the label store's labels
// merged into it (MergeStoreLabels), its categories, the scorer on its
// grade scale and the backend factory. Sweeps and `tune check` both call
// it. The golden set's warnings and the notes go to log; secrets the
// settings name join r. The user's errors are input errors.
func (s *Settings) OpenRun(r *runs.Redactor, log io.Writer) (*Opened, error) {
	ds, err := s.OpenRunDataset(log)
	if err != nil {
		return nil, err
	}
	if err := s.MergeStoreLabels(ds, r, log); err != nil {
		return nil, err
	}
	if s.Filter, err = ds.Filter(s.FilterCategory, s.FilterLanguage); err != nil {
		return nil, err
	}
	if err := s.CheckCategories(ds.Queries); err != nil {
		return nil, inputerr.Wrap(err)
	}
	scorer, err := s.Score.Scorer(ds.Golden.Scale)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("%s: score.primary: %w", s.Src.Where("score.primary"), err))
	}
	for _, w := range ds.Warnings {
		fmt.Fprintln(log, "warning:", w)
	}
	f, err := s.Factory(ds.Corpus, r)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	return &Opened{Dataset: ds, Scorer: scorer, Factory: f}, nil
}

// OpenRunDataset opens a run's golden set (dataset.OpenSweepDataset),
// noting on log when it split it into dev and test.
func (s *Settings) OpenRunDataset(log io.Writer) (*dataset.Dataset, error) {
	ds, judged, err := dataset.OpenSweep(s.Dataset, s.SplitGiven, s.EngineCorpusPath(), s.cache())
	if err != nil {
		return nil, err
	}
	s.Dataset = ds.Config
	if judged > 0 {
		fmt.Fprintf(log, "select, then confirm: %d judged queries (>= %d): tuning on the dev split (%d queries), confirming the winner against the baseline on the held-out test split (set dataset.split or --split all to tune on every query)\n",
			judged, dataset.DefaultSplitMinQueries, len(ds.Queries))
	}
	return ds, nil
}

// MergeStoreLabels sets the dataset's id in the label store and, with
// dataset.labels set, merges the store's labels into its judgments,
// noting their provenance on log (the password of a postgres:// URL
// joins r's secrets).
func (s *Settings) MergeStoreLabels(ds *dataset.Dataset, r *runs.Redactor, log io.Writer) error {
	id := ds.DatasetID()
	ds.Config.ID = id
	if s.Dataset.Labels == "" {
		return nil
	}
	url := s.StoreURL("dataset.labels", s.Dataset.Labels)
	r.AddURLPassword(url)
	if err := ds.MergeLabels(context.Background(), url, id); err != nil {
		return err
	}
	p := ds.Labels.Provenance
	fmt.Fprintf(log, "dataset.labels: %d judgments of dataset %q: %d gold, %d human, %d llm, %d file, %d implicit\n",
		p.Total(), id, p.Gold, p.Human, p.LLM, p.File, p.Implicit)
	return nil
}
