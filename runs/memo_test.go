package runs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestQueryResultsKept: the per-query results a run records (alone or in
// a batch) or reads once are answered from memory afterwards, not decoded
// from trials/NNN.queries.jsonl again (the statistics, leaderboard,
// latency step and report read every trial's results several times); a
// trial whose file the redactor changed is read from its file; a trial
// re-recorded as a replayed line is not answered from memory.
func TestQueryResultsKept(t *testing.T) {
	queries := []runs.QueryResult{{QueryID: "q1", Error: "search: token sk-test-secret-0123456789 refused", Top: []runs.RankedDoc{{DocID: "d1", Score: 0.5, Grade: 2}}, Labels: "1:L2", Scores: map[string]float64{"NDCG@10": 1}, Primary: 0.75}}
	trials := fixtureTrials()
	// spoil replaces a trial's per-query file with one that does not
	// decode: reading it fails.
	spoil := func(t *testing.T, run *runs.Run, index int) {
		t.Helper()
		path := filepath.Join(run.Dir, "trials", fmt.Sprintf("%03d.queries.jsonl", trials[index].Index))
		if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		record func(t *testing.T, run *runs.Run)
		kept   bool
	}{
		{"RecordTrial", func(t *testing.T, run *runs.Run) {
			if err := run.RecordTrial(trials[0], queries); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"batch", func(t *testing.T, run *runs.Run) {
			b := run.NewTrialBatch()
			if err := b.Record(trials[0], queries); err != nil {
				t.Fatal(err)
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"read once", func(t *testing.T, run *runs.Run) {
			if err := run.RecordTrial(trials[0], queries); err != nil {
				t.Fatal(err)
			}
			fresh, err := runs.Load(run.Dir)
			if err != nil {
				t.Fatal(err)
			}
			*run = *fresh // a run that did not record it
			if _, err := run.QueryResults(trials[0].Index); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"redacted", func(t *testing.T, run *runs.Run) {
			run.Redact = runs.NewRedactor("sk-test-secret-0123456789")
			if err := run.RecordTrial(trials[0], queries); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := newTestRun(t)
			tt.record(t, run)
			spoil(t, run, 0)
			got, err := run.QueryResults(trials[0].Index)
			if !tt.kept {
				if err == nil {
					t.Fatalf("QueryResults = %+v from memory, want the (spoilt) file read", got)
				}
				return
			}
			if err != nil || len(got) != 1 || got[0].Primary != 0.75 || got[0].Top[0].DocID != "d1" {
				t.Fatalf("QueryResults = %+v, %v; want the recorded results from memory", got, err)
			}
			got[0] = runs.QueryResult{} // the caller's copy
			if again, err := run.QueryScores(trials[0].Index); err != nil || again[0].QueryID != "q1" {
				t.Errorf("QueryScores after the caller changed its slice = %+v, %v", again, err)
			}
		})
	}

	// A replayed line replacing the trial's files: it is no longer kept.
	run := newTestRun(t)
	if err := run.RecordTrial(trials[0], queries); err != nil {
		t.Fatal(err)
	}
	replayed := trials[0]
	replayed.Replay = &runs.ReplayRef{Collection: "collect-000.jsonl", Settings: []byte(`{}`)}
	b := run.NewTrialBatch()
	e, err := runs.EncodeReplayed(replayed)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(e); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := run.QueryResults(trials[0].Index); err == nil || !strings.Contains(err.Error(), "no Deriver") {
		t.Errorf("QueryResults of a trial replaced by a replayed line: %v, want its results derived (no Deriver)", err)
	}
}
