package settings

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// ResumeExperiments is the experiment file a sweep reads. Without --resume
// it is --experiments (the shipped shortlist for ""). With --resume, the
// run must be one of the runs directory's (it is written into, under the
// store's lock), and without --experiments the run's own snapshot of its
// experiment file is read, not the shipped shortlist. Errors are the
// user's (inputerr.Error).
func (s *Settings) ResumeExperiments(expFile, resume string) (string, error) {
	if resume == "" {
		return expFile, nil
	}
	store := &runs.Store{Dir: s.RunsDir} // not created: a run to resume is in it
	run, err := store.Resolve(resume)
	if err != nil {
		return "", inputerr.Wrap(fmt.Errorf("--resume: %w", err))
	}
	if !store.Contains(run) {
		return "", inputerr.Wrap(fmt.Errorf("--resume %s: runs: not a run directory inside the runs directory %s (a resumed run is written into)", resume, ShownPath(s.RunsDir)))
	}
	if expFile != "" {
		return expFile, nil
	}
	for _, name := range []string{"experiments.json", "experiments.yaml"} {
		p := filepath.Join(run.Dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", inputerr.Wrap(fmt.Errorf("--resume %s: the run holds no copy of its experiment file (experiments.json or .yaml): give --experiments", run.ID()))
}
