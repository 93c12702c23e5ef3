package pass

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Phases notes when each phase of a run ends, from the command's start,
// to find where the tuner's overhead goes: `tune sweep` keeps them when
// TUNE_PHASES is set and writes their summary after the time: line. A mark
// names what ran since the previous mark ("tuner: between trials", then
// "backend: apply", ...): the lifecycle marks its steps and the timed
// backend marks every backend call, and the time between those calls is
// the tuner's. A nil *Phases marks nothing, at no cost.
type Phases struct {
	start time.Time
	mu    sync.Mutex
	last  time.Time
	names []string // in order of first appearance
	sums  map[string]*phaseSum
}

// phaseSum is what a phase's marks add up to.
type phaseSum struct {
	first time.Duration // when the phase first ended, from the start
	n     int
	total time.Duration
}

// NewPhases starts noting phases from start.
func NewPhases(start time.Time) *Phases {
	return &Phases{start: start, last: start, sums: map[string]*phaseSum{}}
}

// Mark says that phase name ran from the previous mark until now.
func (p *Phases) Mark(name string) {
	if p != nil {
		p.MarkAt(name, time.Now())
	}
}

// MarkAt says that phase name ran from the previous mark until at (marks
// are taken in order; an at before the previous mark counts nothing).
func (p *Phases) MarkAt(name string, at time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d := at.Sub(p.last)
	if d < 0 {
		d = 0
	} else {
		p.last = at
	}
	s, ok := p.sums[name]
	if !ok {
		s = &phaseSum{first: at.Sub(p.start)}
		p.sums[name] = s
		p.names = append(p.names, name)
	}
	s.n++
	s.total += d
}

// Write writes one line per phase, in order of first appearance: when it
// first ended (from the start), how often it ran and its total time, and
// the totals of the tuner's phases (those named "tuner: ...") and of the
// backend's ("backend: ...").
func (p *Phases) Write(w io.Writer) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(w, "phases: %9s %4s %9s  phase (TUNE_PHASES; the time since the previous mark)\n", "first end", "n", "total")
	var tuner, back time.Duration
	for _, name := range p.names {
		s := p.sums[name]
		fmt.Fprintf(w, "phases: %8.3fs %4d %8.3fs  %s\n", s.first.Seconds(), s.n, s.total.Seconds(), name)
		switch {
		case len(name) > 7 && name[:7] == "tuner: ":
			tuner += s.total
		case len(name) > 9 && name[:9] == "backend: ":
			back += s.total
		}
	}
	fmt.Fprintf(w, "phases: %.3fs in tuner phases, %.3fs in backend calls, %.3fs until the last mark\n", tuner.Seconds(), back.Seconds(), p.last.Sub(p.start).Seconds())
}
