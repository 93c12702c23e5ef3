package runs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestReplayedRetryReplacesFailedRecord: `--resume --retry-failed` in
// replay mode runs a failed trial again; the failure was recorded live
// (trials/NNN.json, a failed trial has no replay reference) and the retry,
// replayed, lands as a line of a replayed-NNN.jsonl. The run must then hold
// one record of the trial, the retry's: the failed files are removed when
// the retry's batch is flushed, not left to shadow it.
func TestReplayedRetryReplacesFailedRecord(t *testing.T) {
	run := newTestRun(t)
	failed := runs.TrialRecord{Index: 2, Name: "k=20", Params: map[string]any{"fusion.k": 20}, Status: runs.StatusFailed, Error: "backend died"}
	if err := run.RecordTrial(failed, nil); err != nil {
		t.Fatal(err)
	}
	ok := failed
	ok.Status, ok.Error, ok.Primary, ok.Mode = runs.StatusOK, "", 0.5, "replay"
	ok.Summary = runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.5}}
	ok.Replay = &runs.ReplayRef{Collection: "collect-002.jsonl", Settings: []byte(`{"fusion":{"method":"rrf","k":20}}`)}
	e, err := runs.EncodeReplayed(ok)
	if err != nil {
		t.Fatal(err)
	}
	b := run.NewTrialBatch()
	if err := b.Add(e); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Status != runs.StatusOK || got[0].Primary != 0.5 {
		t.Fatalf("Trials = %+v, want the retry's record only", got)
	}
	for _, name := range []string{"002.json", "002.queries.jsonl"} {
		if _, err := os.Stat(filepath.Join(run.Dir, runs.TrialsDir, name)); !os.IsNotExist(err) {
			t.Errorf("the failed trial's %s is still there (%v)", name, err)
		}
	}
}
