package tuner

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// Progress receives the events of a sweep. TrialDone is called once the
// trial's record is durable, which for a live trial happens in the
// background while the next trial starts: implementations must be safe
// for concurrent use (TextProgress holds a lock).
type Progress interface {
	TrialStarted(i, n int, name string)
	QueryDone(done, total int)
	TrialDone(i, n int, rec runs.TrialRecord, eta time.Duration)
}

type nopProgress struct{}

func (nopProgress) TrialStarted(int, int, string)                       {}
func (nopProgress) QueryDone(int, int)                                  {}
func (nopProgress) TrialDone(int, int, runs.TrialRecord, time.Duration) {}

// TextProgress writes progress to w: on a terminal a bar redrawn in place,
// otherwise one plain line per finished trial.
type TextProgress struct {
	W        io.Writer
	Terminal bool

	mu    sync.Mutex
	trial string
	i, n  int
	last  time.Time
}

// TrialStarted implements Progress.
func (p *TextProgress) TrialStarted(i, n int, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.i, p.n, p.trial = i, n, name
	if p.Terminal {
		p.draw(0, 0)
	}
}

// QueryDone implements Progress.
func (p *TextProgress) QueryDone(done, total int) {
	if !p.Terminal {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 50*time.Millisecond && done != total {
		return
	}
	p.last = time.Now()
	p.draw(done, total)
}

func (p *TextProgress) draw(done, total int) {
	const width = 20
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	fmt.Fprintf(p.W, "\r\033[K[%s%s] trial %d/%d %s  queries %d/%d",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.i, p.n, p.trial, done, total)
}

// TrialDone implements Progress.
func (p *TextProgress) TrialDone(i, n int, rec runs.TrialRecord, eta time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Terminal {
		fmt.Fprint(p.W, "\r\033[K")
	}
	result := fmt.Sprintf("primary %.4f", rec.Primary)
	if rec.Status == runs.StatusPruned {
		result = fmt.Sprintf("pruned at %.0f%% of the queries (partial primary %.4f on %d)", 100*rec.Fraction, rec.Primary, rec.Queries)
	} else if rec.Status != runs.StatusOK {
		result = rec.Status + ": " + rec.Error
	}
	fmt.Fprintf(p.W, "trial %d/%d %s: %s (eta %s)\n", i, n, rec.Name, result, eta.Round(time.Second))
}
