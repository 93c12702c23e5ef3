package runs

import (
	"errors"
	"fmt"
	"io"
)

// View is how `tune leaderboard` shows a recorded run: the leaderboard
// (with the judged-only columns when JudgedOnly; its text table Width
// characters wide at most and its text and Markdown tables showing the
// Top trials, see Leaderboard.Width and Top), each trial's primary score
// per group (By: category or difficulty), or the Pareto view of quality
// against latency (Pareto, from latency.json).
type View struct {
	By         string
	JudgedOnly bool
	Pareto     bool
	// Decide, when set, gives the verdict of a leaderboard recorded
	// without one (an older run).
	Decide     func(Leaderboard) Verdict
	Width, Top int
}

// ErrNoLatency is the error of a Pareto view of a run that measured no
// latency. Its exit code is 2: the user asked for what the run lacks.
var ErrNoLatency error = noLatencyError{errors.New("measured no latency")}

type noLatencyError struct{ error }

// ExitCode is 2 (the command layer reads it): an input error.
func (noLatencyError) ExitCode() int { return 2 }

// RenderView writes run's leaderboard to w as v asks, in format (text,
// json, md or csv).
func RenderView(w io.Writer, run *Run, v View, format string) error {
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return err
	}
	switch {
	case v.Pareto:
		l, ok, err := run.ReadLatency()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("--pareto: run %s %w (%s): only live trials and the finalists of latency.finalists are measured", run.ID(), ErrNoLatency, LatencyFile)
		}
		return lb.Pareto(l).Render(w, format)
	case v.By != "":
		return lb.RenderBy(w, v.By, format)
	}
	lb.ShowJudgedOnly, lb.Width, lb.Top = v.JudgedOnly, v.Width, v.Top
	if lb.Verdict == nil && v.Decide != nil {
		verdict := v.Decide(lb)
		lb.Verdict = &verdict
	}
	return lb.Render(w, format)
}
