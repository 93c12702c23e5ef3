package runs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

func newTestRun(t *testing.T) *runs.Run {
	t.Helper()
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "test"}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestTrialBatch: nothing is visible before Flush, the flushed files are
// byte for byte those of RecordTrial, and Abort leaves no temporaries.
func TestTrialBatch(t *testing.T) {
	queries := []runs.QueryResult{{QueryID: "q1", Top: []runs.RankedDoc{{DocID: "d<1>", Score: 0.5, Grade: 2}}, Labels: "1:L2", Scores: map[string]float64{"NDCG@10": 1}, Primary: 0.75}}
	one, batched := newTestRun(t), newTestRun(t)
	b := batched.NewTrialBatch()
	for _, tr := range fixtureTrials() {
		if err := one.RecordTrial(tr, queries); err != nil {
			t.Fatal(err)
		}
		if err := b.Record(tr, queries); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := batched.Trials(); len(got) != 0 {
		t.Fatalf("%d trials visible before Flush", len(got))
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(one.Dir, "trials", "*"))
	if len(files) != 2*len(fixtureTrials()) {
		t.Fatalf("RecordTrial wrote %d files", len(files))
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(batched.Dir, "trials", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: batch wrote %q (%v), RecordTrial %q", filepath.Base(f), got, err, want)
		}
	}
	if all, _ := filepath.Glob(filepath.Join(batched.Dir, "trials", "*")); len(all) != len(files) {
		t.Errorf("batch left %d files, want %d", len(all), len(files))
	}

	aborted := newTestRun(t)
	b = aborted.NewTrialBatch()
	if err := b.Record(fixtureTrials()[0], queries); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if left, _ := os.ReadDir(filepath.Join(aborted.Dir, "trials")); len(left) != 0 {
		t.Errorf("Abort left %d files", len(left))
	}
}

// TestReplayedTrials: replayed trials of a batch land as the lines of one
// replayed-NNN.jsonl (none visible before Flush), Trials and Trial read
// them back, a trial re-recorded live overrides its replayed line, and
// QueryResults of a replayed trial says its results are derived.
func TestReplayedTrials(t *testing.T) {
	run := newTestRun(t)
	ref := &runs.ReplayRef{Collection: "collect-004.jsonl", Settings: []byte(`{"fusion":{"method":"rrf","k":10}}`)}
	b := run.NewTrialBatch()
	for _, i := range []int{6, 4, 5} {
		tr := runs.TrialRecord{Index: i, Name: fmt.Sprintf("t%d", i), Params: map[string]any{"fusion.k": i}, Status: runs.StatusOK,
			Primary: float64(i) / 10, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.5}}, Mode: "replay", Replay: ref}
		e, err := runs.EncodeReplayed(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runs.EncodeReplayed(runs.TrialRecord{Name: "live"}); err == nil {
		t.Error("EncodeReplayed took a trial without a replay reference")
	}
	if got, _ := run.Trials(); len(got) != 0 {
		t.Fatalf("%d trials visible before Flush", len(got))
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(run.Dir, "trials", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "replayed-004.jsonl" {
		t.Fatalf("files %v, want one replayed-004.jsonl", files)
	}
	got, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Index != 4 || got[2].Index != 6 || got[1].Replay == nil || got[1].Replay.Collection != "collect-004.jsonl" {
		t.Fatalf("Trials = %+v", got)
	}
	if _, err := run.QueryResults(5); err == nil || !strings.Contains(err.Error(), "collect-004.jsonl") || !strings.Contains(err.Error(), "no Deriver") {
		t.Errorf("QueryResults of a replayed trial without a Deriver: %v, want an error naming the collection", err)
	}
	// With a Deriver the run answers every trial: the replayed one from
	// the Deriver, the others from their files.
	run.Derive = replayedOnly{5: {{QueryID: "q1", Primary: 0.5}}}
	if res, err := run.QueryResults(5); err != nil || len(res) != 1 || res[0].Primary != 0.5 {
		t.Errorf("QueryResults of a replayed trial with a Deriver: %v, %v", res, err)
	}
	run.Derive = nil
	// Verified live: its own files override the replayed line.
	live := got[1]
	live.Mode, live.Replay, live.Primary = "verified", nil, 0.55
	if err := run.RecordTrial(live, []runs.QueryResult{{QueryID: "q1", Scores: map[string]float64{}, Primary: 0.55}}); err != nil {
		t.Fatal(err)
	}
	run.Derive = replayedOnly{} // derives no trial: each reads its own file
	if res, err := run.QueryScores(5); err != nil || len(res) != 1 || res[0].Primary != 0.55 {
		t.Errorf("QueryScores of the trial re-recorded live: %v, %v", res, err)
	}
	got, _ = run.Trials()
	if len(got) != 3 || got[1].Mode != "verified" || got[1].Primary != 0.55 {
		t.Errorf("after re-recording trial 5 live: %+v", got[1])
	}
	if one, err := run.Trial(5); err != nil || one.Mode != "verified" {
		t.Errorf("Trial(5) = %+v, %v", one, err)
	}
	if one, err := run.Trial(6); err != nil || one.Name != "t6" {
		t.Errorf("Trial(6) = %+v, %v", one, err)
	}
	if _, err := run.Trial(9); err == nil {
		t.Error("Trial(9) of no recorded trial: no error")
	}
	if res, err := run.QueryResults(5); err != nil || len(res) != 1 {
		t.Errorf("QueryResults(5) after live record: %v, %v", res, err)
	}
	// A batch interrupted before its flush leaves a temporary, which a
	// resume removes.
	stale := filepath.Join(run.Dir, "trials", ".replayed-009.jsonl.batch")
	if err := os.WriteFile(stale, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := run.RemoveTemp(); err != nil || n != 1 {
		t.Errorf("RemoveTemp = %d, %v; want 1 file removed", n, err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale batch temporary is still there")
	}
}

// replayedOnly derives the results of the trials it holds.
type replayedOnly map[int][]runs.QueryResult

func (d replayedOnly) Derive(_ *runs.Run, index int, _ bool) ([]runs.QueryResult, bool, error) {
	res, ok := d[index]
	return res, ok, nil
}
