package tuner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// overlapProbe checks, when a trial is reported done, that its record is
// whole on disk, and holds the report until the next trial has started
// (or a timeout): a loop that writes a trial's record before it starts the
// next one never gets there.
type overlapProbe struct {
	t     *testing.T
	dir   func() string // the run directory, once known
	total int

	mu        sync.Mutex
	started   map[int]chan struct{}
	overlaps  int
	timeouts  []int
	notOnDisk []string
}

func (p *overlapProbe) ch(i int) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started[i] == nil {
		p.started[i] = make(chan struct{})
	}
	return p.started[i]
}

func (p *overlapProbe) TrialStarted(i, _ int, _ string) { close(p.ch(i)) }
func (p *overlapProbe) QueryDone(int, int)              {}

func (p *overlapProbe) TrialDone(i, n int, rec runs.TrialRecord, _ time.Duration) {
	// Reported finished: the record and its per-query results are in place.
	base := filepath.Join(p.dir(), "trials", fmt.Sprintf("%03d", rec.Index))
	var onDisk runs.TrialRecord
	data, err := os.ReadFile(base + ".json")
	if err == nil {
		err = json.Unmarshal(data, &onDisk)
	}
	if err == nil && onDisk.Name != rec.Name {
		err = fmt.Errorf("holds %q", onDisk.Name)
	}
	if err == nil {
		_, err = os.Stat(base + ".queries.jsonl")
	}
	p.mu.Lock()
	if err != nil {
		p.notOnDisk = append(p.notOnDisk, fmt.Sprintf("%s: %v", rec.Name, err))
	}
	p.mu.Unlock()
	if i == n {
		return
	}
	select {
	case <-p.ch(i + 1):
		p.mu.Lock()
		p.overlaps++
		p.mu.Unlock()
	case <-time.After(5 * time.Second):
		p.mu.Lock()
		p.timeouts = append(p.timeouts, i)
		p.mu.Unlock()
	}
}

// TestRecordOverlapsNextTrial: a live trial's record is made durable while
// the next trial starts (the loop does not wait for the fsyncs before it
// goes on), yet a trial is reported done only once its record and
// per-query results are on disk; the timings say how long the records
// took beside the next trials.
func TestRecordOverlapsNextTrial(t *testing.T) {
	trials := landscapeTrials()
	c := runConfig(t, trials, nil)
	var runDir string
	var dirMu sync.Mutex
	probe := &overlapProbe{t: t, total: len(trials), started: map[int]chan struct{}{}}
	probe.dir = func() string {
		dirMu.Lock()
		defer dirMu.Unlock()
		if runDir == "" {
			list, err := c.Store.List()
			if err != nil || len(list) != 1 {
				t.Errorf("runs: %v (%d)", err, len(list))
				return ""
			}
			runDir = list[0].Dir
		}
		return runDir
	}
	c.Progress = probe
	out, err := tuner.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(probe.notOnDisk) > 0 {
		t.Errorf("trials reported done before their records were on disk: %v", probe.notOnDisk)
	}
	if len(probe.timeouts) > 0 || probe.overlaps != len(trials)-1 {
		t.Errorf("the next trial started while a record was written after %d of %d trials (waited in vain after trials %v)",
			probe.overlaps, len(trials)-1, probe.timeouts)
	}
	if len(out.Trials) != len(trials) {
		t.Errorf("%d trials recorded, want %d", len(out.Trials), len(trials))
	}
	if tm := out.Timings; tm.RecordOverlappedSeconds <= 0 {
		t.Errorf("timings: %+v, want records written beside the next trials", tm)
	}
}
