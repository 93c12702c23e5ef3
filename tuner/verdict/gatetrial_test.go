package verdict_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"
)

// TestGateTrial: a trial's gates are checked, recorded in the run and
// written; a failed gate is an error.
func TestGateTrial(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Tool: "tune"}, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	e := runs.Entry{Name: "t", Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{"MRR@10": 0.7}}}
	for _, tc := range []struct {
		gate string
		pass bool
	}{{"MRR@10 >= 0.5", true}, {"MRR@10 >= 0.9", false}} {
		g, err := verdict.ParseGate(tc.gate)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		err = verdict.GateTrial(run, e, []verdict.Gate{g}, &w)
		if (err == nil) != tc.pass || w.Len() == 0 {
			t.Errorf("%s: err %v, output %q", tc.gate, err, w.String())
		}
		rec, ok, err := run.ReadGates()
		if err != nil || !ok || rec.Pass != tc.pass || rec.Trial != "t" {
			t.Errorf("%s: recorded %+v, %v, %v", tc.gate, rec, ok, err)
		}
	}
}
