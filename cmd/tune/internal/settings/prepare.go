package settings

import (
	"errors"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// SweepJudge is a sweep's judge-as-you-tune request (tune sweep --judge
// SPEC and its bounds). Given names the bounding flags the user set
// (judge-budget, judge-target, judge-leading, judge-strategy): they need Spec.
type SweepJudge struct {
	Spec    string
	Budget  int
	Target  float64
	Leading int
	// Strategy is how each round chooses its pairs (judging.JudgeLoop).
	Strategy string
	Given    []string
}

// PrepareSweep reads and checks everything the sweep r (shared: on a
// shared study, SweepRequest.Check) asks for, before any run directory
// exists or any backend starts: the backend kind, every input file the
// settings name, the experiment file (ResumeExperiments), the Config
// (SweepConfig), the judge loop j asks for, and a shared study's live
// mode (Config.LiveOnly). The Config lacks its store and progress. Notes
// go to log; the user's errors are input errors (inputerr.Error).
func (s *Settings) PrepareSweep(r tuner.SweepRequest, shared bool, j SweepJudge, red *runs.Redactor, log io.Writer) (*tuner.Config, error) {
	if err := r.CheckBackend(s.Backend.Kind, s.Backend.Config); err != nil {
		return nil, err
	}
	if err := s.CheckInputs(); err != nil {
		return nil, inputerr.Wrap(err)
	}
	expFile, err := s.ResumeExperiments(r.Experiments, r.Resume)
	if err != nil {
		return nil, err
	}
	c, err := s.SweepConfig(r, expFile, red, log)
	if err != nil {
		return nil, err
	}
	if c.Judge, err = s.sweepJudge(j, shared, c.Queries, red, log); err != nil {
		return nil, err
	}
	if shared {
		if err := c.LiveOnly(r.ModeGiven, log); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// sweepJudge checks j and returns the judge loop it asks for (nil
// without a Spec), over the golden set's queries, logging to log.
func (s *Settings) sweepJudge(j SweepJudge, shared bool, queries []scoring.Query, red *runs.Redactor, log io.Writer) (*judging.JudgeLoop, error) {
	if j.Spec == "" {
		if len(j.Given) > 0 {
			return nil, inputerr.Wrap(fmt.Errorf("--%s: only with --judge", j.Given[0]))
		}
		return nil, nil
	}
	if !(j.Target > 0 && j.Target <= 1) {
		return nil, inputerr.Wrap(fmt.Errorf("--judge-target must be in (0, 1] (got %g)", j.Target))
	}
	l, err := s.JudgeLoop(j.Spec, judging.JudgeLoop{Budget: j.Budget, Target: j.Target, Leading: j.Leading, Strategy: j.Strategy}, queries, red)
	if errors.Is(err, judge.ErrSpec) {
		return nil, inputerr.Wrap(fmt.Errorf("--judge: %w", err))
	}
	if err != nil {
		return nil, err
	}
	if shared {
		return nil, inputerr.Wrap(errors.New("--judge: not for a study shared through --storage or --parallel"))
	}
	l.Log = log
	return l, nil
}

// SeedValue is the stats seed, 0 when unset.
func (s Stats) SeedValue() int64 {
	if s.Seed == nil {
		return 0
	}
	return *s.Seed
}
