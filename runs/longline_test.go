package runs_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestLongQueryLineReadBack: a per-query line longer than the line
// reader's starting buffer (and than the 1 MB it once started with) is
// read back whole; the buffer grows to it.
func TestLongQueryLineReadBack(t *testing.T) {
	run := newTestRun(t)
	long := strings.Repeat("x", 3<<20)
	queries := []runs.QueryResult{{QueryID: "q1", Error: long, Scores: map[string]float64{}}, {QueryID: "q2", Scores: map[string]float64{"NDCG@10": 1}, Primary: 1}}
	if err := run.RecordTrial(runs.TrialRecord{Index: 0, Name: "long", Status: runs.StatusOK}, queries); err != nil {
		t.Fatal(err)
	}
	again, err := runs.Load(run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.QueryResults(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Error != long || got[1].Primary != 1 {
		t.Errorf("read back %d results (first error %d bytes), want 2 (%d bytes)", len(got), len(got[0].Error), len(long))
	}
}
