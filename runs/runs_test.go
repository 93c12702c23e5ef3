package runs_test

import (
	"bytes"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func ptr(v float64) *float64 { return &v }

func fixtureTrials() []runs.TrialRecord {
	return []runs.TrialRecord{
		{Index: 0, Name: "baseline", Baseline: true, Status: runs.StatusOK, Mode: "live", Primary: 0.5,
			Params: map[string]any{"fusion.k": 60.0}, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.55, "ERR@10": 0.4},
				Categories: map[string]map[string]float64{"direct": {"primary": 0.7, "NDCG@10": 0.75}}, Routing: ptr(0.9), Queries: 10}},
		{Index: 1, Name: "k=40", Status: runs.StatusOK, Mode: "live", Primary: 0.5250000000000001,
			Params: map[string]any{"fusion.k": 40.0}, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.58, "ERR@10": 0.41}, Queries: 10}},
		{Index: 2, Name: "k=80", Status: runs.StatusFailed, Mode: "live", Error: "ready: service exited",
			Params: map[string]any{"fusion.k": 80.0}, Summary: runs.Summary{Scorecard: map[string]float64{}}},
		{Index: 3, Name: "a-tie", Status: runs.StatusOK, Mode: "live", Primary: 0.525,
			Params: map[string]any{"fusion.k": 50.0}, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.5, "ERR@10": 0.3}, Queries: 10}},
		{Index: 4, Name: "tpe-001", Status: runs.StatusPruned, Mode: "live", Primary: 0.6, Sampler: "tpe", Fraction: 0.25,
			Rungs:  []runs.Rung{{Fraction: 0.25, Queries: 3, Primary: 0.6}},
			Params: map[string]any{"fusion.k": 12.0}, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.6, "ERR@10": 0.5}, Queries: 3}},
	}
}

func TestLeaderboardOrder(t *testing.T) {
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	var names []string
	for _, e := range lb.Trials {
		names = append(names, e.Name)
	}
	// 0.5250000000000001 rounds to 0.525: a tie broken by name.
	// The pruned trial's partial score ranks it after every complete one.
	want := "a-tie,k=40,baseline,tpe-001,k=80"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if d := lb.Trials[1].Delta; d == nil || *d != 0.025 {
		t.Errorf("delta of k=40 = %v, want 0.025", d)
	}
	if lb.Trials[3].Delta != nil || lb.Trials[4].Delta != nil {
		t.Errorf("failed trial has a delta")
	}
	best, ok := lb.Best()
	if !ok || best.Name != "a-tie" {
		t.Errorf("best = %v %v", best.Name, ok)
	}
}

// TestLeaderboardRender compares every format with golden files.
func TestLeaderboardRender(t *testing.T) {
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	checkRender(t, lb, "TestLeaderboardRender")
	if err := lb.Render(&bytes.Buffer{}, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestLeaderboardRenderStats renders the statistics columns: the delta
// with its interval, the significance marks (+, n.s., ?), the notes line,
// the held-out estimate and the warnings.
func TestLeaderboardRenderStats(t *testing.T) {
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	lb.Stats = &runs.StatsInfo{Against: "baseline", Test: "paired randomization (sign-flip) test of the mean (two-sided)", Correction: "holm",
		Rule:  "paired randomization test of the mean, holm over 2 trials, α = 0.05; interval inverts the test at the adjusted level",
		Alpha: 0.05, Level: 0.95, Resamples: 2000, Permutations: 10000, Seed: 42, MinCategoryQueries: 5}
	lb.HeldOut = &runs.HeldOut{Trial: "a-tie", Split: "test", Queries: 40, Primary: 0.49, DevPrimary: 0.525}
	lb.Warnings = []string{"category x has 4 queries: no interval (need 5)"}
	for i := range lb.Trials {
		switch lb.Trials[i].Name {
		case "a-tie":
			lb.Trials[i].Comparison = &runs.Comparison{Against: "baseline", Metric: "primary", N: 10, NonZero: 9,
				Delta: 0.025, Low: 0.01, High: 0.04, Level: 0.997, P: 0.006, PAdjusted: ptr(0.0156), Correction: "holm", Family: 2,
				Significant: true, Alpha: 0.05, Mark: "+", Seed: 7,
				Secondary: &runs.Secondary{BootstrapLow: 0.012, BootstrapHigh: 0.038, BootstrapLevel: 0.95, W: ptr(44), PWilcoxon: ptr(0.0078), PGreater: ptr(0.0039)}}
			lb.Trials[i].CategoryIntervals = map[string]runs.Interval{"direct": {Mean: 0.7, Low: 0.6, High: 0.8, N: 6},
				"x": {Mean: 0.5, Low: 0.5, High: 0.5, N: 4, Warning: "category x has 4 queries: no interval (need 5)"}}
		case "k=40":
			lb.Trials[i].Comparison = &runs.Comparison{Against: "baseline", Metric: "primary", N: 10, NonZero: 4,
				Delta: 0.025, Low: -0.01, High: 0.06, Level: 0.95, P: 0.4, Correction: "holm", Family: 2, Alpha: 0.05, Seed: 8,
				Warnings: []string{"too few non-zero pairs: 4 (need 6)"}}
		}
	}
	checkRender(t, lb, "TestLeaderboardRenderStats")
}

// TestLeaderboardRenderCeiling renders the ceiling: the "% ceil" column
// (primary / ceiling; none for a failed or pruned trial), the ceiling in the primary
// line, of_ceiling in CSV and JSON.
func TestLeaderboardRenderCeiling(t *testing.T) {
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, fixtureTrials())
	lb.SetCeiling(runs.Ceiling{Primary: 0.7000000000001, Scorecard: map[string]float64{"NDCG@10": 1, "ERR@10": 0.4, "Judged@10": 0.3}})
	if lb.Ceiling.Primary != 0.7 {
		t.Errorf("ceiling %v, want rounded 0.7", lb.Ceiling.Primary)
	}
	for _, e := range lb.Trials {
		switch {
		case e.Status == runs.StatusFailed && e.OfCeiling != nil:
			t.Errorf("%s: failed trial has of_ceiling %v", e.Name, *e.OfCeiling)
		case e.Name == "a-tie" && (e.OfCeiling == nil || *e.OfCeiling != 0.75):
			t.Errorf("a-tie: of_ceiling %v, want 0.525/0.7 = 0.75", e.OfCeiling)
		}
	}
	checkRender(t, lb, "TestLeaderboardRenderCeiling")
}

// TestLeaderboardRenderSame shows trials with the same results as one
// row of the text and Markdown tables (the best-ranked, "+N same", and a
// note naming the others); JSON and CSV keep every trial, JSON marking
// same_as. A failed trial with an equal key is left alone.
func TestLeaderboardRenderSame(t *testing.T) {
	trials := fixtureTrials()
	trials = append(trials, runs.TrialRecord{Index: 5, Name: "k=40-copy", Status: runs.StatusOK, Mode: "reused",
		ReusedFrom: "k=40", Primary: 0.5250000000000001, Summary: trials[1].Summary})
	lb := runs.NewLeaderboard("mean of NDCG@10, ERR@10", []string{"NDCG@10", "ERR@10"}, trials)
	lb.MarkSameResults(map[string]string{"baseline": "b", "k=40": "x", "a-tie": "x", "k=40-copy": "x", "k=80": "x"})
	var same []string
	for _, e := range lb.Trials {
		same = append(same, e.Name+"="+e.SameAs)
	}
	want := []string{"a-tie=", "k=40=a-tie", "k=40-copy=a-tie", "baseline=", "tpe-001=", "k=80="}
	if !slices.Equal(same, want) {
		t.Errorf("same_as %v, want %v", same, want)
	}
	checkRender(t, lb, "TestLeaderboardRenderSame")
}

func checkRender(t *testing.T, lb runs.Leaderboard, name string) {
	t.Helper()
	checkGolden(t, name, lb.Render)
}

// checkGolden renders each format with render and compares it with
// testdata/NAME.golden.FORMAT (rewritten with -update).
func checkGolden(t *testing.T, name string, render func(io.Writer, string) error) {
	t.Helper()
	checkGoldenFormats(t, name, []string{"text", "json", "md", "csv"}, render)
}

// checkGoldenFormats is checkGolden for the formats given.
func checkGoldenFormats(t *testing.T, name string, formats []string, render func(io.Writer, string) error) {
	t.Helper()
	for _, f := range formats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := render(&b, f); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".golden."+f)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs from %s:\n%s", f, golden, b.String())
			}
		})
	}
}

// TestRunStoreRoundTrip records trials, reads them back, and checks that the
// leaderboard JSON is byte-identical when rebuilt in another order.
func TestRunStoreRoundTrip(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{Experiments: "abc"}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(run.ID(), "20260102T030405Z-") {
		t.Errorf("run id %q", run.ID())
	}
	trials := fixtureTrials()
	for i := len(trials) - 1; i >= 0; i-- {
		q := []runs.QueryResult{{QueryID: "q1", Labels: "1:L3", Scores: map[string]float64{"NDCG@10": 1}, RequestID: "r"}}
		if err := run.RecordTrial(trials[i], q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(trials) || got[0].Name != "baseline" || got[3].Name != "a-tie" {
		t.Fatalf("trials read back: %+v", got)
	}
	qs, err := run.QueryResults(1)
	if err != nil || len(qs) != 1 || qs[0].QueryID != "q1" {
		t.Fatalf("query results: %v %+v", err, qs)
	}
	a, _ := runs.MarshalJSON(runs.NewLeaderboard("p", []string{"NDCG@10"}, trials))
	b, _ := runs.MarshalJSON(runs.NewLeaderboard("p", []string{"NDCG@10"}, got))
	if !bytes.Equal(a, b) {
		t.Errorf("leaderboard bytes differ after a round trip")
	}
	for _, ref := range []string{"", "latest", run.ID(), run.ID()[:10]} {
		r, err := store.Resolve(ref)
		if err != nil || r.ID() != run.ID() {
			t.Errorf("Resolve(%q) = %v, %v", ref, r, err)
		}
	}
	for _, ref := range []string{"../etc", "nope", ".."} {
		if _, err := store.Resolve(ref); err == nil {
			t.Errorf("Resolve(%q) succeeded", ref)
		}
	}
	if err := run.Finish("done", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	list, err := store.List()
	if err != nil || len(list) != 1 || list[0].Manifest.Status != "done" {
		t.Errorf("List = %v, %v", list, err)
	}
}

// TestWriteFileAtomicKeepsOldOnFailure writes into a read-only directory:
// the write fails and the old file is untouched.
func TestWriteFileAtomicKeepsOldOnFailure(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := runs.WriteFileAtomic(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if err := runs.WriteFileAtomic(path, []byte("new"), 0o644); err == nil {
		t.Fatal("write into a read-only directory succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("file is %q", data)
	}
}

func TestFormatDelta(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{0.0023, "+0.0023"}, {-0.0067, "-0.0067"}, {0, "+0.0000"}, {-0.00001, "+0.0000"}, {0.00004, "+0.0000"}, {-0.00005001, "-0.0001"}} {
		if got := runs.FormatDelta(tc.in); got != tc.want {
			t.Errorf("FormatDelta(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFormatBound: an interval bound keeps the sign of a non-zero value
// that rounds to zero, so that [-0.0040, -0.0000] reads as excluding 0.
func TestFormatBound(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{-9.55621e-07, "-0.0000"}, {0, "+0.0000"}, {math.Copysign(0, -1), "+0.0000"}, {4e-7, "+0.0000"}, {-0.0067, "-0.0067"}, {0.0023, "+0.0023"}} {
		if got := runs.FormatBound(tc.in); got != tc.want {
			t.Errorf("FormatBound(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
