package judging

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// TestHarvestPool: each logged search of an added query is a ranking;
// priorities sum 1/rank over the searches; a pair judged by a person is
// left out, one only clicks judged is pooled; queries not added are not.
func TestHarvestPool(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	search := func(id, q string, docs ...string) querylog.Event {
		e := querylog.Event{Type: querylog.TypeSearch, Time: at, RequestID: id, Query: q, K: len(docs)}
		for _, d := range docs {
			e.Results = append(e.Results, querylog.Result{ID: d, Score: 1})
		}
		return e
	}
	log := &querylog.Log{Searches: []querylog.Event{
		search("r1", "frozen pipe", "d1", "d2", "d3"),
		search("r2", "Frozen pipe?", "d2", "d1"),
		search("r3", "refund", "d9", "d8"),
	}}
	qs, _ := harvest.Group(log.Searches)
	var added []harvest.Query
	for _, q := range qs {
		if q.Norm == "frozen pipe" {
			added = append(added, q)
		}
	}
	if len(added) != 1 || len(added[0].Requests) != 2 {
		t.Fatalf("grouped %+v", qs)
	}
	qid := added[0].ID
	url := filepath.Join(t.TempDir(), "labels.db")
	st, err := labels.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(t.Context(), []labels.Label{
		{Dataset: "h", Query: qid, Doc: "d3", Grade: 1, Judge: "ann", Source: labels.SourceHuman},
		{Dataset: "h", Query: qid, Doc: "d2", Grade: 2, Judge: harvest.JudgeCOEC, Source: labels.SourceImplicit},
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	judged, err := JudgedExceptImplicit(t.Context(), url, "h")
	if err != nil {
		t.Fatal(err)
	}
	p, err := PoolHarvested(&harvest.Result{Log: log, Sampled: added}, "h", 10, judged)
	if err != nil {
		t.Fatal(err)
	}
	// d1: 1/1 + 1/2 = 1.5 from two searches; d2: 1/2 + 1/1 = 1.5, also
	// two; d1 then d2 by document id; d3 (a person's label) left out.
	if len(p.Pairs) != 2 || p.Pairs[0].Doc != "d1" || p.Pairs[1].Doc != "d2" || p.Pairs[0].Priority != 1.5 || p.Pairs[0].Trials != 2 ||
		p.Pairs[0].Query != qid || p.Pairs[0].Dataset != "h" || p.Stats.Sources != 2 {
		t.Errorf("pool %+v", p)
	}
	if _, err := PoolHarvested(&harvest.Result{Log: &querylog.Log{}, Sampled: added}, "h", 10, judged); err == nil {
		t.Error("a search missing from the log was not reported")
	}
}
