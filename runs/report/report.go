package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/fusiontune/fusiontune/runs"
)

// FileName is the report's name inside a run directory.
const FileName = "report.html"

// Defaults of Options.
const (
	// DefaultJudgedWarn is the share of the reachable Judged@10 below which
	// the report warns that the top results are mostly unjudged (and so
	// count as irrelevant). The reachable Judged@10 is the ideal ranking's
	// (the leaderboard's ceiling): min(10, judged)/10 per query, averaged,
	// so a golden set with three judgments a query reaches 0.3 and warns
	// below 0.15. Without a recorded ceiling it is 1.
	DefaultJudgedWarn = 0.5
	// DefaultWorst is how many of the best trial's worst queries are shown.
	DefaultWorst = 10
	// DefaultTopDocs is how many results are shown per worst query.
	DefaultTopDocs = 3
)

// CoverageMetric is the scorecard metric that measures judged coverage.
const CoverageMetric = "Judged@10"

// Options tunes what the report shows. Start from DefaultOptions.
type Options struct {
	// JudgedWarn is the share of the reachable Judged@10 (0-1) below which
	// coverage warns.
	JudgedWarn float64
	// Worst is the number of worst queries of the best trial shown.
	Worst int
	// TopDocs is the number of results shown per worst query.
	TopDocs int
	// By, when set, adds the best trial's scores per segment of the
	// queries (language, category, difficulty or meta.KEY), each query's
	// segment in Segments by id.
	By       string
	Segments map[string]string
}

// DefaultOptions returns the options with every default applied.
func DefaultOptions() Options {
	return Options{JudgedWarn: DefaultJudgedWarn, Worst: DefaultWorst, TopDocs: DefaultTopDocs}
}

// Validate reports options that cannot be rendered.
func (o Options) Validate() error {
	var errs []error
	if o.JudgedWarn < 0 || o.JudgedWarn > 1 {
		errs = append(errs, fmt.Errorf("report: judged-coverage threshold must be in [0, 1] (got %g)", o.JudgedWarn))
	}
	if o.Worst < 0 {
		errs = append(errs, fmt.Errorf("report: worst-query count must be >= 0 (got %d)", o.Worst))
	}
	if o.TopDocs < 0 {
		errs = append(errs, fmt.Errorf("report: results per query must be >= 0 (got %d)", o.TopDocs))
	}
	return errors.Join(errs...)
}

// Render writes the run's report as one self-contained HTML document.
func Render(w io.Writer, run *runs.Run, o Options) error {
	return renderReport(w, run, o, nil)
}

// RenderLeaderboard is Render with the run's leaderboard given as its
// leaderboard.json holds it (runs.LeaderboardFiles.AsWritten), which need
// not be written yet: a sweep renders its report while the leaderboard's
// files are written. The report does not change lb.
func RenderLeaderboard(w io.Writer, run *runs.Run, o Options, lb runs.Leaderboard) error {
	return renderReport(w, run, o, &lb)
}

// renderReport is Render with the leaderboard given (nil: read).
func renderReport(w io.Writer, run *runs.Run, o Options, lb *runs.Leaderboard) error {
	if err := o.Validate(); err != nil {
		return err
	}
	p, err := build(run, o, lb)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return fmt.Errorf("report: render %s: %w", run.ID(), err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// Write renders the report into the run directory as report.html,
// atomically, and returns its path.
func Write(run *runs.Run, o Options) (string, error) {
	var b bytes.Buffer
	if err := Render(&b, run, o); err != nil {
		return "", err
	}
	path := filepath.Join(run.Dir, FileName)
	if err := run.WriteFile(FileName, b.Bytes()); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return path, nil
}

// isNotExist reports whether err means a file is missing.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
