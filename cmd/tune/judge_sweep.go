package main

import (
	"errors"

	"github.com/fusiontune/fusiontune/experiments/judge"
	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner"
)

// sweepJudgeFlags are a sweep's judge-as-you-tune flags.
type sweepJudgeFlags struct {
	spec    string
	budget  int
	target  float64
	leading int
}

// judgeFlagSpecs are a sweep's judge-as-you-tune flags.
var judgeFlagSpecs = []cli.Flag{
	cli.String("judge", "", "after the sweep, judge the leading trials' unjudged hits and rescore: llm (settings judge.*) or file:PATH (a qrels file)"),
	cli.Int("judge-budget", 0, "with --judge: the most (query, document) pairs to judge, >= 1"),
	cli.Float("judge-target", tuner.DefaultJudgeTarget, "with --judge: stop once the leading trials' Judged@10 reaches this, in (0, 1]"),
	cli.Int("judge-leading", tuner.DefaultJudgeLeading, "with --judge: how many of the best trials to pool and measure, >= 1"),
}

func judgeFlagsOf(fs *cli.Parsed) *sweepJudgeFlags {
	return &sweepJudgeFlags{spec: fs.Str("judge"), budget: fs.Int("judge-budget"), target: fs.Float("judge-target"), leading: fs.Int("judge-leading")}
}

// setJudge checks the judge flags of f and sets c.Judge to the loop they
// ask for (none without --judge).
func (a *app) setJudge(f *sweepFlags, s *settings, c *tuner.Config, shared bool) error {
	l, err := a.judgeLoop(f.fs, f.judge, s, c.Queries)
	if err != nil || l == nil {
		return err
	}
	if shared {
		return usageErrorf("--judge: not for a study shared through --storage or --parallel")
	}
	l.Log = a.stderr
	c.Judge = l
	return nil
}

// judgeLoop checks the flags and returns the judge loop they ask for (nil
// without --judge). queries are the golden set's queries.
func (a *app) judgeLoop(fs *cli.Parsed, j *sweepJudgeFlags, s *settings, queries []tuner.Query) (*tuner.JudgeLoop, error) {
	if j.spec == "" {
		for _, name := range []string{"judge-budget", "judge-target", "judge-leading"} {
			if fs.Given(name) {
				return nil, usageErrorf("--%s: only with --judge", name)
			}
		}
		return nil, nil
	}
	if !(j.target > 0 && j.target <= 1) {
		return nil, usageErrorf("--judge-target must be in (0, 1] (got %g)", j.target)
	}
	l, err := s.JudgeLoop(j.spec, tuner.JudgeLoop{Budget: j.budget, Target: j.target, Leading: j.leading}, queries, a.secrets)
	if errors.Is(err, judge.ErrSpec) {
		return nil, usageErrorf("--judge: %v", err)
	}
	return l, runError(err)
}
