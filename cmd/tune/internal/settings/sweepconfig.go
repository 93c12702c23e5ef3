package settings

import (
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// SweepConfig reads and checks everything the sweep r asks for from the
// settings (RunConfig) and the experiment file expFile (the one of the run
// r resumes: ResumeExperiments), before any run directory exists or any
// backend starts: the trials, the study, replay, latency, constraints and
// the held-out split. It returns the Config for tuner.Run without its
// store, progress and judge loop. Notes and warnings go to log; the user's
// errors are input errors (inputerr.Error).
func (s *Settings) SweepConfig(r tuner.SweepRequest, expFile string, red *runs.Redactor, log io.Writer) (*tuner.Config, error) {
	r.Phases.Mark("tuner: flags, settings, input checks")
	ef, trials, err := tuner.ExpandExperiments(expFile, log)
	if err != nil {
		return nil, err
	}
	r.Phases.Mark("tuner: read the experiment file")
	c, _, err := s.RunConfig(ef, "tune", red, log)
	if err != nil {
		return nil, err
	}
	r.Phases.Mark("tuner: load the golden set, make the backend factory")
	if err := tuner.CheckTrials(c.Backend, trials); err != nil {
		return nil, inputerr.Wrap(err)
	}
	r.Phases.Mark("tuner: check the trials")
	c.Phases = r.Phases
	if c.Study, err = tuner.StudyFor(ef, c.Backend); err != nil {
		return nil, inputerr.Wrap(err)
	}
	if c.Replay, err = tuner.ReplayFor(c.Backend, r.Mode, r.Verify); err != nil {
		return nil, err
	}
	if c.Replay != nil {
		c.Replay.Log = log
	} else if m, _ := tuner.ParseMode(r.Mode); m == tuner.ModeAuto && (s.Backend.Kind == KindHTTP || s.Backend.Kind == KindProcess) {
		fmt.Fprintf(log, "note: --mode auto: backend.kind %s does not replay: every trial runs live, its config written to %s and the service restarted on it\n", s.Backend.Kind, s.Backend.Config)
	}
	c.Trials, c.Latency, c.Constraints, c.ConstrainSampler = trials, s.Latency.Options(), s.ParsedConstraints, s.Score.ConstrainSampler
	c.Log, c.Manifest.Args = log, r.Args
	if s.Dataset.Split == experiments.SplitDev {
		c.HeldOut = dataset.HeldOutQueries(s.Dataset, s.EngineCorpusPath(), s.cache())
	}
	return c, nil
}
