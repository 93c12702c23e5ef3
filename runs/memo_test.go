package runs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
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

// TestTrialRecordsKept: the records a run writes (alone or in a batch)
// are answered by Trials from memory, not read back (Trials is called by
// the latency step, the leaderboard and the report), equal to what a run
// reading the files gets; the caller's copy shares nothing with the kept
// one; a record the redactor changed is kept as its file holds it; a
// record replaced by a replayed line is read from that line.
func TestTrialRecordsKept(t *testing.T) {
	trials := fixtureTrials()
	trials[1].Params = map[string]any{"fusion.k": 40.0, "fusion.weights": map[string]any{"bm25": 0.4, "dense": 0.6}, "list": []any{1.0, "a"}}
	trials[2].Error = "ready: token sk-test-secret-0123456789 refused"
	record := map[string]func(t *testing.T, run *runs.Run){
		"RecordTrial": func(t *testing.T, run *runs.Run) {
			for _, tr := range trials {
				if err := run.RecordTrial(tr, nil); err != nil {
					t.Fatal(err)
				}
			}
		},
		"batch": func(t *testing.T, run *runs.Run) {
			b := run.NewTrialBatch()
			for _, tr := range trials {
				if err := b.Record(tr, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Flush(); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, rec := range record {
		t.Run(name, func(t *testing.T) {
			run := newTestRun(t)
			run.Redact = runs.NewRedactor("sk-test-secret-0123456789")
			rec(t, run)
			fresh, err := runs.Load(run.Dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Trials()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(want[2].Error, "sk-test") {
				t.Fatalf("record file not redacted: %q", want[2].Error)
			}
			for _, tr := range trials { // spoil every file: none is read
				path := filepath.Join(run.Dir, "trials", fmt.Sprintf("%03d.json", tr.Index))
				if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := run.Trials()
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Trials = %+v, %v; want the records as read from their files %+v", got, err, want)
			}
			// The caller changes its copy: the next caller does not see it.
			got[1].Params["fusion.weights"].(map[string]any)["bm25"] = 9.0
			got[1].Params["list"].([]any)[0] = 9.0
			got[0].Scorecard["NDCG@10"], got[0].Categories["direct"]["primary"], *got[0].Routing = 9, 9, 9
			got[4].Rungs[0].Primary = 9
			again, err := run.Trials()
			if err != nil || !reflect.DeepEqual(again, want) {
				t.Errorf("Trials after the caller changed its copy = %+v, %v; want %+v", again, err, want)
			}
		})
	}

	// A record replaced by a replayed line is no longer kept.
	run := newTestRun(t)
	if err := run.RecordTrial(trials[0], nil); err != nil {
		t.Fatal(err)
	}
	replayed := trials[0]
	replayed.Mode = "replay"
	replayed.Replay = &runs.ReplayRef{Collection: "collect-000.jsonl", Settings: []byte(`{}`)}
	b := run.NewTrialBatch()
	e, err := runs.EncodeReplayed(replayed)
	if err == nil {
		err = b.Add(e)
	}
	if err == nil {
		err = b.Flush()
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := run.Trials(); err != nil || len(got) != 1 || got[0].Mode != "replay" {
		t.Errorf("Trials after a replayed line replaced the record = %+v, %v; want the replayed record", got, err)
	}
}

// TestTrialRecordCloneSharesNothing: Clone copies every map, slice and
// pointer of a record with every field set (a field added later is set
// too, by reflection), deeply equal to the original.
func TestTrialRecordCloneSharesNothing(t *testing.T) {
	var tr runs.TrialRecord
	fill(reflect.ValueOf(&tr).Elem())
	tr.Params = map[string]any{"a": map[string]any{"b": []any{1.0, map[string]any{"c": "d"}}}, "e": []any{2.0}}
	c := tr.Clone()
	if !reflect.DeepEqual(c, tr) {
		t.Fatalf("Clone = %+v, want %+v", c, tr)
	}
	if p := shared(reflect.ValueOf(tr), reflect.ValueOf(c), "TrialRecord"); p != "" {
		t.Errorf("the clone shares %s with the original", p)
	}
}

// fill sets every field reachable from v to a non-zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Uint8:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	}
}

// shared names the first map, slice or pointer a and b share ("": none).
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Interface:
		if a.IsNil() {
			return ""
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if p := shared(a.MapIndex(k), b.MapIndex(k), path+"["+fmt.Sprint(k)+"]"); p != "" {
				return p
			}
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range a.Len() {
			if p := shared(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestLeaderboardFilesAsWritten: RenderLeaderboard's files, once
// written, are WriteLeaderboard's bytes, and AsWritten is the leaderboard
// ReadLeaderboard then returns: the leaderboard rendered itself when the
// redactor changes nothing, its redacted JSON decoded when it does.
func TestLeaderboardFilesAsWritten(t *testing.T) {
	trials := fixtureTrials()
	trials[2].Error = "ready: token sk-test-secret-0123456789 refused"
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, trials)
	for _, secret := range []string{"", "sk-test-secret-0123456789"} {
		run := newTestRun(t)
		if secret != "" {
			run.Redact = runs.NewRedactor(secret)
		}
		f, err := run.RenderLeaderboard(lb)
		if err != nil {
			t.Fatal(err)
		}
		shown, err := f.AsWritten()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Write(); err != nil {
			t.Fatal(err)
		}
		read, err := run.ReadLeaderboard()
		if err != nil {
			t.Fatal(err)
		}
		want := lb
		if secret != "" {
			want = read
			if e, _ := shown.Find("k=80"); strings.Contains(e.Error, secret) {
				t.Errorf("redacted run: AsWritten shows the secret: %q", e.Error)
			}
		}
		if !reflect.DeepEqual(shown, want) {
			t.Errorf("secret %q: AsWritten = %+v, want %+v", secret, shown, want)
		}
		other := newTestRun(t)
		other.Redact = run.Redact
		if err := other.WriteLeaderboard(lb); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{runs.LeaderboardJSONFile, runs.LeaderboardMDFile, runs.LeaderboardCSVFile} {
			a, errA := run.ReadFile(name)
			b, errB := other.ReadFile(name)
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s differs from WriteLeaderboard's (%v, %v)", name, errA, errB)
			}
		}
	}
}
