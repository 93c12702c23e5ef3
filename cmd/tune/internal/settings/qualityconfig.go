package settings

import (
	"io"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// QualityConfig reads and checks what `tune check-quality` needs before
// any run directory exists: the golden set (every query unless
// dataset.split is set), the scorer and the backend (RunConfig of the
// as-is experiment file), the golden set and corpus for the failure
// report. The caller adds the store, progress, reference and failures
// shown. Secrets join r, notes go to log; the user's errors are
// input errors (inputerr.Error).
func (s *Settings) QualityConfig(r *runs.Redactor, log io.Writer) (*tuner.QualityConfig, error) {
	if !s.SplitGiven {
		s.Dataset.Split = experiments.SplitAll // a check scores every query; nothing is selected
		s.SplitGiven = true
	}
	if err := s.CheckInputs(); err != nil {
		return nil, inputerr.Wrap(err)
	}
	ef, err := tuner.AsIsExperiments()
	if err != nil {
		return nil, err
	}
	c, ds, err := s.RunConfig(ef, "tune check-quality", r, log)
	if err != nil {
		return nil, err
	}
	c.Log = log
	return &tuner.QualityConfig{Config: *c, Golden: ds.Golden, Corpus: ds.Corpus}, nil
}
