package main

import (
	"context"
	"flag"
	"strings"

	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/judge"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/pool"
)

// judgeFlags are a sweep's judge-as-you-tune flags.
type judgeFlags struct {
	spec    string
	budget  int
	target  float64
	leading int
}

// addJudgeFlags registers --judge, --judge-budget, --judge-target and
// --judge-leading on fs.
func addJudgeFlags(fs *flag.FlagSet) *judgeFlags {
	j := &judgeFlags{}
	fs.StringVar(&j.spec, "judge", "", "after the sweep, judge the leading trials' unjudged hits and rescore: file:PATH (labels from a qrels file)")
	fs.IntVar(&j.budget, "judge-budget", 0, "with --judge: the most (query, document) pairs to judge, >= 1")
	fs.Float64Var(&j.target, "judge-target", tuner.DefaultJudgeTarget, "with --judge: stop once the leading trials' Judged@10 reaches this, in (0, 1]")
	fs.IntVar(&j.leading, "judge-leading", tuner.DefaultJudgeLeading, "with --judge: how many of the best trials to pool and measure, >= 1")
	return j
}

// setJudge checks the judge flags of f and sets c.Judge to the loop they
// ask for (none without --judge).
func (a *app) setJudge(f *sweepFlags, s *settings, c *tuner.Config, shared bool) error {
	l, err := f.judge.loop(f.fs, s, c.Queries)
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

// loop checks the flags and returns the judge loop they ask for (nil
// without --judge). queries are the golden set's queries.
func (j *judgeFlags) loop(fs *flag.FlagSet, s *settings, queries []tuner.Query) (*tuner.JudgeLoop, error) {
	if j.spec == "" {
		for _, name := range []string{"judge-budget", "judge-target", "judge-leading"} {
			if flagSet(fs, name) {
				return nil, usageErrorf("--%s: only with --judge", name)
			}
		}
		return nil, nil
	}
	if !(j.target > 0 && j.target <= 1) {
		return nil, usageErrorf("--judge-target must be in (0, 1] (got %g)", j.target)
	}
	l := &tuner.JudgeLoop{Budget: j.budget, Target: j.target, Leading: j.leading, StoreURL: s.Dataset.Labels}
	if err := l.Validate(); err != nil {
		return nil, usageErrorf("%v", err)
	}
	path, ok := strings.CutPrefix(j.spec, "file:")
	if !ok || path == "" {
		return nil, usageErrorf("--judge: want file:PATH (got %q)", j.spec)
	}
	known := make(map[string]bool, len(queries))
	for _, q := range queries {
		known[q.ID] = true
	}
	f, err := judge.NewFile("", path, known)
	if err != nil {
		return nil, inputError(err)
	}
	l.Name = f.Name()
	texts := make(map[string]string, len(queries))
	for _, q := range queries {
		texts[q.ID] = q.Text
	}
	l.Judge = judgeFunc(f, texts)
	return l, nil
}

// judgeFunc adapts a judge to the loop: pairs carry the query texts
// (documents by id), labels the pool's dataset.
func judgeFunc(jd judge.Judge, queries map[string]string) tuner.JudgeFunc {
	return func(ctx context.Context, pairs []pool.Pair) ([]labels.Label, error) {
		in := make([]judge.Pair, len(pairs))
		for i, p := range pairs {
			in[i] = judge.Pair{Query: p.Query, QueryText: queries[p.Query], Doc: p.Doc}
		}
		ls, err := jd.Judge(ctx, in)
		for i := range ls {
			if len(pairs) > 0 {
				ls[i].Dataset = pairs[0].Dataset
			}
		}
		return ls, err
	}
}
