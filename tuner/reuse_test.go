package tuner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestReuseSameChunks sweeps chunk sizes above the demo's longest
// document (they cut it alike) beside one that cuts it, live and in
// replay mode, with the embedded backend's fingerprint: the trials whose
// chunks and other settings equal an earlier trial's are not run but
// reuse its results (mode "reused", reused_from naming it, the same
// per-query results), and only the others cost a restart or a collection.
func TestReuseSameChunks(t *testing.T) {
	qs, corpus := demoQueries(t)
	f, err := embedded.New(embedded.Options{Corpus: corpus, CacheDir: t.TempDir(),
		Engine: map[string]any{"corpus": map[string]any{"path": corpus, "format": "beir"}, "dense": map[string]any{"model": "hash-384"}}})
	if err != nil {
		t.Fatal(err)
	}
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.k": 60.0}),
		replayTrialSpec("c4000-k40", experiments.Params{"chunk.size": 4000.0, "fusion.k": 40.0}),
		replayTrialSpec("c5000", experiments.Params{"chunk.size": 5000.0, "chunk.overlap": 10.0}),
		replayTrialSpec("c5000-k40", experiments.Params{"chunk.size": 5000.0, "chunk.overlap": 10.0, "fusion.k": 40.0}),
		replayTrialSpec("c4000", experiments.Params{"chunk.size": 4000.0, "fusion.k": 60.0}),
		replayTrialSpec("c20", experiments.Params{"chunk.size": 20.0}),
	}
	// Whole documents (the baseline) have other chunk ids than one chunk
	// per document: c4000 reuses c4000-k40's group, not the baseline.
	wantFrom := map[string]string{"c5000": "c4000", "c5000-k40": "c4000-k40"}
	for _, mode := range []tuner.Mode{tuner.ModeLive, tuner.ModeReplay} {
		t.Run(string(mode), func(t *testing.T) {
			b := newEngineBackend(t, corpus)
			run := newRun(t, filepath.Join(t.TempDir(), "runs"))
			o := tuner.Options{Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
				Fingerprint: func(p experiments.Params) (string, error) { return f.Fingerprint(p) }}
			if mode != tuner.ModeLive {
				o.Replay = &tuner.ReplayOptions{Mode: mode, Resolve: b.Resolve, Verify: -1}
			}
			res, err := tuner.Sweep(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			recs := readRecords(t, run)
			for _, tr := range trials {
				r := recs[tr.Name]
				from := wantFrom[tr.Name]
				if r.Status != runs.StatusOK || r.ReusedFrom != from || (from != "") != (r.Mode == runs.TrialReused) {
					t.Errorf("%s: status %s, mode %s, reused from %q; want from %q", tr.Name, r.Status, r.Mode, r.ReusedFrom, from)
				}
				if from == "" {
					continue
				}
				if !reflect.DeepEqual(r.Params, map[string]any(tr.Params)) || r.Index == recs[from].Index || r.Primary != recs[from].Primary {
					t.Errorf("%s: index %d params %v primary %v; its source %d, %v", tr.Name, r.Index, r.Params, r.Primary, recs[from].Index, recs[from].Primary)
				}
				got, err := run.QueryResults(r.Index)
				if err != nil {
					t.Fatal(err)
				}
				want, err := run.QueryResults(recs[from].Index)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(qs) || !reflect.DeepEqual(rankings(got), rankings(want)) {
					t.Errorf("%s: %d per-query results unlike %s's", tr.Name, len(got), from)
				}
			}
			// Live: a restart per distinct config run (4); replay: a
			// collection per chunking run (whole documents, 4000, 20) and
			// the winner's confirmation.
			if want := 4; res.Restarts != want {
				t.Errorf("%d restarts, want %d", res.Restarts, want)
			}
		})
	}
}

// rankings are the per-query outcomes two runs of one configuration share
// (request ids and latencies aside): id, routing, primary, top documents.
func rankings(rs []runs.QueryResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s %s %.12f", r.QueryID, r.Routing, r.Primary)
		for _, d := range r.Top {
			out[i] += " " + d.DocID
		}
	}
	return out
}
