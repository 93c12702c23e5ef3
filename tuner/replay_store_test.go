package tuner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// fiveFusionTrials are a baseline and four fusion settings (RRF with
// another k and weight, a min_score floor, linear z-score, CombMNZ), for
// replay tests on the demo.
func fiveFusionTrials() []experiments.TrialSpec {
	return []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0}),
		replayTrialSpec("rrf-k5", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0, "fusion.weights.bm25": 0.3}),
		replayTrialSpec("min-score", experiments.Params{"fusion.method": "rrf", "min_score": 0.03}),
		replayTrialSpec("linear-z", experiments.Params{"fusion.method": "linear", "fusion.normalization": "z_score"}),
		replayTrialSpec("combmnz", experiments.Params{"fusion.method": "combmnz"}),
	}
}

// TestReplayedTrialsStoreNoQueries: replayed trials are recorded without
// a per-query file, their per-query results are derived from the stored
// collection by a fresh Results (as a later command reads them), and the
// summary the replay recorded is the mean of those results, bit for bit.
// Scores gives the same scores as Get, without the top hits.
func TestReplayedTrialsStoreNoQueries(t *testing.T) {
	qs, corpus := demoQueries(t)
	b := newEngineBackend(t, corpus)
	trials := fiveFusionTrials()
	res, err, run := sweep(t, b, qs, trials, tuner.ModeReplay, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(run.Dir, "trials", "collect-000.jsonl")); err != nil {
		t.Fatalf("no stored collection: %v", err)
	}
	// The collection's trials are recorded in one batch: one file of
	// replayed records, flushed once (not a file and an fsync a trial).
	if files, err := filepath.Glob(filepath.Join(run.Dir, "trials", "replayed-*.jsonl")); err != nil || len(files) != 1 {
		t.Errorf("replayed record files %v (%v), want one for the collection's batch", files, err)
	}
	replayed := 0
	for _, tr := range res.Trials {
		queriesFile := filepath.Join(run.Dir, "trials", fmt.Sprintf("%03d.queries.jsonl", tr.Index))
		_, err := os.Stat(queriesFile)
		switch tr.Mode {
		case runs.TrialReplay:
			replayed++
			if err == nil {
				t.Errorf("replayed trial %s has a per-query file", tr.Name)
			}
			if tr.Replay == nil || tr.Replay.Collection != "collect-000.jsonl" {
				t.Errorf("replayed trial %s: replay reference %+v", tr.Name, tr.Replay)
			}
		case runs.TrialVerified:
			if err != nil {
				t.Errorf("verified trial %s has no per-query file: %v", tr.Name, err)
			}
		}
		full, err := run.QueryResults(tr.Index)
		if err != nil {
			t.Fatalf("trial %s: %v", tr.Name, err)
		}
		scores, err := run.QueryScores(tr.Index)
		if err != nil {
			t.Fatalf("trial %s: %v", tr.Name, err)
		}
		if len(full) != len(qs) || len(scores) != len(qs) {
			t.Fatalf("trial %s: %d and %d results for %d queries", tr.Name, len(full), len(scores), len(qs))
		}
		// The recorded summary is the mean over the judged queries.
		sum, n := 0.0, 0
		metricSums := map[string]float64{}
		for i, r := range full {
			if r.Unjudged {
				continue
			}
			sum += r.Primary
			n++
			for m, v := range r.Scores {
				metricSums[m] += v
			}
			if tr.Mode == runs.TrialReplay && len(r.Top) == 0 && r.Routing != "no_results" {
				t.Errorf("trial %s query %s: derived result without top hits", tr.Name, r.QueryID)
			}
			s := scores[i]
			if s.Primary != r.Primary || s.Routing != r.Routing || len(s.Scores) != len(r.Scores) {
				t.Errorf("trial %s query %s: Scores gives %v/%s, Get %v/%s", tr.Name, r.QueryID, s.Primary, s.Routing, r.Primary, r.Routing)
			}
			for m, v := range r.Scores {
				if s.Scores[m] != v {
					t.Errorf("trial %s query %s: %s %v by Scores, %v by Get", tr.Name, r.QueryID, m, s.Scores[m], v)
				}
			}
		}
		if got := sum / float64(n); got != tr.Primary || n != tr.Queries {
			t.Errorf("trial %s: recorded primary %v over %d queries, derived mean %v over %d", tr.Name, tr.Primary, tr.Queries, got, n)
		}
		for m, v := range tr.Scorecard {
			if got := metricSums[m] / float64(n); got != v {
				t.Errorf("trial %s: recorded %s %v, derived mean %v", tr.Name, m, v, got)
			}
		}
	}
	if replayed != len(trials)-1 {
		t.Errorf("%d replayed trials, want %d (all but the winner)", replayed, len(trials)-1)
	}
	// The sweep's own run, whose Deriver knew the winner as replayed before
	// it was verified, now reads its live record.
	for _, tr := range res.Trials {
		if tr.Mode != runs.TrialVerified {
			continue
		}
		got, err := run.QueryScores(tr.Index)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got[0].RequestID, "/verify-") {
			t.Errorf("verified trial %s: the sweep's reader gives request id %q, not the live record's", tr.Name, got[0].RequestID)
		}
	}
	// Another run's view (no memory of the sweep) reads the same records.
	again, err := runs.Load(run.Dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := again.Trials()
	if err != nil || len(recs) != len(trials) {
		t.Fatalf("reloaded run: %d trials, %v", len(recs), err)
	}
	again.Derive = replay.NewDeriver()
	for _, tr := range recs {
		want, err := run.QueryResults(tr.Index)
		if err != nil {
			t.Fatal(err)
		}
		got, err := again.QueryResults(tr.Index)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("trial %s read again with a new Deriver: %v (equal: %v)", tr.Name, err, reflect.DeepEqual(got, want))
		}
	}
}

// TestVerifyOverridesInOnePass: the winner's real apply + restart and the
// other verified trials of its replay group share one live pass (the
// winner as its configuration ranks, the others as fusion variants of
// the same requests: the engine fuses every override from one
// retrieval), so a replay costs one collection and one verification
// pass; a backend that answers no fusion variants gets a pass per other
// trial, with the same verified results.
func TestVerifyOverridesInOnePass(t *testing.T) {
	qs, corpus := demoQueries(t)
	trials := []experiments.TrialSpec{
		replayTrialSpec("baseline", experiments.Params{"fusion.method": "rrf", "fusion.k": 60.0}),
		replayTrialSpec("k5", experiments.Params{"fusion.method": "rrf", "fusion.k": 5.0}),
		replayTrialSpec("k20-weighted", experiments.Params{"fusion.method": "rrf", "fusion.k": 20.0, "fusion.weights.bm25": 0.3}),
		replayTrialSpec("linear", experiments.Params{"fusion.method": "linear", "fusion.normalization": "min_max"}),
		replayTrialSpec("combsum", experiments.Params{"fusion.method": "combsum"}),
	}
	verified := func(variants bool) (map[string]runs.TrialRecord, string) {
		b := newEngineBackend(t, corpus)
		var count, asConfigured atomic.Int64
		b.Alter = func(req *backend.SearchRequest) {
			count.Add(1)
			if !req.Explain && req.Fusion == nil {
				asConfigured.Add(1) // the winner, on its own applied config
			}
			if !variants {
				req.Variants = nil
			}
		}
		run := newRun(t, filepath.Join(t.TempDir(), "runs"))
		var log strings.Builder
		_, err := tuner.Sweep(context.Background(), tuner.Options{
			Trials: trials, Queries: qs, Backend: b, Scorer: demoScorer(t), Run: run,
			Replay: &tuner.ReplayOptions{Mode: tuner.ModeReplay, Resolve: b.Resolve, Verify: 4, Log: &log},
		})
		if err != nil {
			t.Fatalf("variants %v: %v\n%s", variants, err, log.String())
		}
		// One collection pass and the winner's pass (with the others as
		// variants, else a pass each).
		searches := int(count.Load())
		passes := searches / len(qs)
		want := 1 + 1
		if !variants {
			want = 1 + 1 + 3
		}
		if passes != want || searches%len(qs) != 0 {
			t.Errorf("variants %v: %d searches = %d passes of %d queries, want %d passes\n%s", variants, searches, passes, len(qs), want, log.String())
		}
		// The winner's real apply + restart is kept: a second engine, whose
		// configuration ranks every query of the winner's pass.
		if n := int(asConfigured.Load()); n != len(qs) || b.Restarts() != 2 {
			t.Errorf("variants %v: %d searches on the applied config (want %d), %d engines started (want 2)", variants, n, len(qs), b.Restarts())
		}
		return readRecords(t, run), log.String()
	}
	batched, log := verified(true)
	if !strings.Contains(log, "through apply + restart (the winner) (one pass for 4 trials)") ||
		strings.Count(log, "through per-request fusion override on the winner's config (one pass for 4 trials)") != 3 {
		t.Errorf("no shared override pass:\n%s", log)
	}
	single, log := verified(false)
	if !strings.Contains(log, "answers no fusion variants") {
		t.Errorf("no fallback to a pass per trial:\n%s", log)
	}
	n := 0
	for name, r := range batched {
		if r.Mode == runs.TrialVerified {
			n++
		}
		s := single[name]
		if r.Mode != s.Mode || r.Primary != s.Primary {
			t.Errorf("%s: %s %v with variants, %s %v without", name, r.Mode, r.Primary, s.Mode, s.Primary)
		}
	}
	if n != 4 {
		t.Errorf("%d verified trials, want 4", n)
	}
}

// TestScoreByRankEqualsSorting: the replay's hot path, which places the
// judged documents by counting instead of sorting the fused ranking,
// gives exactly the scores, primary and routing of the sorted ranking,
// for every demo query under every method, weights including zero, a
// shallow depth and min_score cut-offs (one leaving no hits).
func TestScoreByRankEqualsSorting(t *testing.T) {
	qs, pls := demoLists(t)
	core := tuner.NewReplayCore(demoScorer(t), pass.DefaultDepth)
	f := func(v float64) *float64 { return &v }
	var settings []fusion.Settings
	for _, p := range []fusion.Params{
		{Method: fusion.RRF, K: 60, Depth: 100},
		{Method: fusion.RRF, K: 1, Depth: 100, Weights: map[string]float64{"bm25": 0.8, "dense": 0.2}},
		{Method: fusion.RRF, K: 10, Depth: 100, Weights: map[string]float64{"bm25": 0, "dense": 1}},
		{Method: fusion.RRF, K: 60, Depth: 5},
		{Method: fusion.Linear, Normalization: fusion.MinMax, Depth: 100, Weights: map[string]float64{"bm25": 0.4, "dense": 0.6}},
		{Method: fusion.Linear, Normalization: fusion.ZScore, Depth: 100},
		{Method: fusion.Linear, Normalization: fusion.None, Depth: 100},
		{Method: fusion.CombSUM, Normalization: fusion.L2, Depth: 100},
		{Method: fusion.CombMNZ, Normalization: fusion.MinMax, Depth: 100},
	} {
		for _, min := range []*float64{nil, f(0.02), f(0.5), f(1e9)} {
			settings = append(settings, fusion.Settings{Fusion: p, MinScore: min})
		}
	}
	checked := 0
	for i, q := range qs {
		rq := core.Prepare(q, pls[i])
		for _, s := range settings {
			fast, sorted, fp, sp, fr, sr := core.ScoreBoth(rq, s)
			if fp != sp || fr != sr || !reflect.DeepEqual(fast, sorted) {
				t.Fatalf("query %s, %+v min_score %v: by rank %v %v %s, sorted %v %v %s", q.ID, s.Fusion, s.MinScore, fp, fast, fr, sp, sorted, sr)
			}
			checked++
		}
	}
	t.Logf("%d (query x settings) pairs equal", checked)
}
