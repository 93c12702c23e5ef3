package main_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixtureRun writes a run directory with a fixed id: trials whose per-query
// results are drawn from a seeded generator (so the fixture is the same on
// every machine) and its leaderboard.
func fixtureRun(t *testing.T, dir, id string, seed uint64, trials []string) {
	t.Helper()
	rdir := filepath.Join(dir, id)
	if err := os.MkdirAll(filepath.Join(rdir, runs.TrialsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	run := &runs.Run{Dir: rdir, Manifest: runs.Manifest{ID: id, Status: "done", Seed: 42, Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if err := run.SaveManifest(); err != nil {
		t.Fatal(err)
	}
	cats := []string{"direct", "paraphrase", "rare"}
	var recs []runs.TrialRecord
	for ti, name := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(ti)))
		var results []runs.QueryResult
		var sum float64
		for q := 0; q < 24; q++ {
			cat := cats[min(q/10, 2)] // 10 direct, 10 paraphrase, 4 rare
			r := runs.QueryResult{QueryID: fmt.Sprintf("q%02d", q), Category: cat, Scores: map[string]float64{}}
			// Later trials do a little better on paraphrases.
			r.Primary = float64(int(1000*(0.3+0.4*rng.Float64()+0.05*float64(ti)*boolf(cat == "paraphrase")))) / 1000
			r.Scores["NDCG@10"] = r.Primary
			perm := rng.Perm(12)
			for i := 0; i < 5; i++ {
				grade := -1
				if perm[i]%4 == 0 {
					grade = perm[i] % 3
				}
				r.Top = append(r.Top, runs.RankedDoc{DocID: fmt.Sprintf("d%02d", perm[i]), Score: float64(5 - i), Grade: grade})
			}
			if q == 23 {
				r.Unjudged, r.Primary, r.Scores["NDCG@10"] = true, 0, 0
			} else {
				sum += r.Primary
			}
			results = append(results, r)
		}
		rec := runs.TrialRecord{Index: ti, Name: name, Status: runs.StatusOK, Mode: "live", Baseline: ti == 0,
			Primary: sum / 23, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": sum / 23}, Queries: 23}}
		if err := run.RecordTrial(rec, results); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := run.WriteLeaderboard(runs.NewLeaderboard("NDCG@10", []string{"NDCG@10"}, recs)); err != nil {
		t.Fatal(err)
	}
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", "compare", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n%s", golden, got)
	}
}

// TestCompareGolden runs tune compare on two recorded fixture runs in every
// format and compares stdout with golden files.
func TestCompareGolden(t *testing.T) {
	e := newSweepEnv(t, "runs_dir: runs\nstats:\n  metrics: [NDCG@10]\n")
	dir := filepath.Join(e.dir, "runs")
	fixtureRun(t, dir, "20260101T000000Z-aaaaaa", 1, []string{"baseline", "k=40"})
	fixtureRun(t, dir, "20260102T000000Z-bbbbbb", 2, []string{"baseline", "w=bm25:0.6"})
	for _, tc := range []struct{ name, format, a, b string }{
		{"text", "text", "20260101T000000Z-aaaaaa:baseline", "20260102T000000Z-bbbbbb:w=bm25:0.6"},
		{"md", "md", "20260101T000000Z-aaaaaa:baseline", "20260102T000000Z-bbbbbb:w=bm25:0.6"},
		{"json", "json", "20260101T000000Z-aaaaaa:baseline", "20260102T000000Z-bbbbbb:w=bm25:0.6"},
		{"same-run-best", "text", "20260101:baseline", "20260101"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := e.run("compare", tc.a, tc.b, "--format", tc.format)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkGolden(t, tc.name+".stdout", stdout)
		})
	}
	for _, tc := range []struct{ name, want string }{
		{"nosuch:baseline", `no run "nosuch"`},
		{"20260101:nosuch", `no trial "nosuch"`},
	} {
		_, stderr, code := e.run("compare", tc.name, "20260102")
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", tc.name, code)
		}
		mustContain(t, "stderr", stderr, tc.want)
	}
}
