package report_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is a run recorded by a real sweep on the demo dataset (see
// testdata/README.md for the command).
const fixture = "testdata/run"

// loadFixture copies the fixture run into a temporary directory, so that a
// test may change it, and loads it.
func loadFixture(t *testing.T) *runs.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	run, err := runs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func render(t *testing.T, run *runs.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Render(&b, run, report.DefaultOptions()); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.Bytes()
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		out := filepath.Join(t.TempDir(), name)
		os.WriteFile(out, got, 0o644)
		t.Errorf("report differs from %s (got written to %s; run with -update if the change is intended)", path, out)
	}
}

func TestRenderGolden(t *testing.T) {
	run := loadFixture(t)
	checkGolden(t, "TestRenderGolden.golden.html", render(t, run))
}

// withStatistics fills what the statistics and replay steps record: a
// paired comparison per trial, category intervals, and replay modes. The
// values are made up but fixed, so the golden file pins their rendering.
func withStatistics(t *testing.T, run *runs.Run) {
	t.Helper()
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	p := func(v float64) *float64 { return &v }
	modes := map[string]string{"rrf-k200-bm25-0.7": "verified", "linear-minmax": "replay", "rrf-k10-bm25-0.3": "replay"}
	for i := range lb.Trials {
		e := &lb.Trials[i]
		if m, ok := modes[e.Name]; ok {
			e.Mode = m
		}
		if e.Status != runs.StatusOK {
			continue
		}
		e.CategoryIntervals = map[string]runs.Interval{}
		for c, m := range e.Categories {
			iv := runs.Interval{Mean: m["primary"], Low: m["primary"] - 0.06, High: m["primary"] + 0.05, N: 10}
			if c == "misspelled" {
				iv = runs.Interval{Mean: m["primary"], Low: m["primary"], High: m["primary"], N: 4, Warning: "4 queries: no interval"}
			}
			e.CategoryIntervals[c] = iv
		}
		if e.Name == lb.Baseline {
			continue
		}
		c := &runs.Comparison{Against: lb.Baseline, Metric: "primary", N: 40, NonZero: 31, Delta: *e.Delta,
			Low: *e.Delta - 0.011, High: *e.Delta + 0.009, Level: 0.99, P: 0.05, PAdjusted: p(0.12), Correction: "holm", Family: 5, Alpha: 0.05, Seed: 7,
			Secondary: &runs.Secondary{BootstrapLow: *e.Delta - 0.01, BootstrapHigh: *e.Delta + 0.008, BootstrapLevel: 0.95, W: p(300), PWilcoxon: p(0.04), PGreater: p(0.02)}}
		if *e.Delta < -0.01 {
			c.PAdjusted, c.Significant, c.Mark = p(0.003), true, "-"
		}
		if e.Name == "linear-minmax" {
			c.Secondary.W, c.Secondary.PWilcoxon, c.Secondary.PGreater, c.PAdjusted = nil, nil, nil, nil
			c.Warnings = []string{"too few non-zero pairs (5): no Wilcoxon test"}
		}
		e.Comparison = c
		if e.Rank == 1 {
			e.MetricComparisons = []runs.Comparison{
				{Against: lb.Baseline, Metric: "NDCG@10", N: 40, Delta: 0.004, Low: -0.002, High: 0.011, Level: 0.95, PAdjusted: p(0.2), Correction: "holm"},
				{Against: lb.Baseline, Metric: "Recall@20", N: 40, Delta: 0.02, Low: 0.004, High: 0.035, Level: 0.95, PAdjusted: p(0.01), Correction: "holm", Significant: true, Mark: "+"},
			}
		}
	}
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	trials, err := run.Trials()
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		if m, ok := modes[tr.Name]; ok {
			tr.Mode = m
			if err := run.WriteJSON(fmt.Sprintf("trials/%03d.json", tr.Index), tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestRenderStatisticsGolden(t *testing.T) {
	run := loadFixture(t)
	withStatistics(t, run)
	got := render(t, run)
	checkGolden(t, "TestRenderStatisticsGolden.golden.html", got)
	for _, want := range []string{"interval of the decision", "[-0.0260, -0.0060]", "0.003", `<span class="sig neg"`, "4 queries: no interval",
		"Whiskers are bootstrap intervals", "1 verified", "2 replay", "the scores agreed",
		"p (holm)", "against the baseline on other metrics", `Recall@20</td><td class="num">&#43;0.0200 <span class="sig">&#43;</span>`, `ok<br><span class="interval">verified</span>`, "linear-minmax: too few non-zero pairs (5): no Wilcoxon test"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("report with statistics lacks %q", want)
		}
	}
	for _, absent := range []string{"Statistics were not computed", "No replay in this run"} {
		if bytes.Contains(got, []byte(absent)) {
			t.Errorf("report with statistics still says %q", absent)
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	run := loadFixture(t)
	first := render(t, run)
	path, err := report.Write(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != report.FileName || filepath.Dir(path) != run.Dir {
		t.Errorf("Write wrote %s, want %s in the run directory", path, report.FileName)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, written) || !bytes.Equal(first, render(t, run)) {
		t.Error("the same run rendered to different bytes")
	}
}

// TestRenderDegrades covers runs that lack a part of what the report shows.
func TestRenderDegrades(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, run *runs.Run)
		want   []string
		absent []string
	}{
		{
			name:   "recorded run",
			change: func(*testing.T, *runs.Run) {},
			want: []string{"interval of the decision", "p (holm)", "Whiskers are bootstrap intervals", "Held-out estimate:</strong> rrf-k200-bm25-0.7 scores 0.4452 on the test split (40 queries) against 0.4296",
				"wilcoxon signed-rank (two-sided) against baseline, holm-corrected", "No replay in this run",
				"4 of 4 trials have Judged@10 below 0.5000", "unreachable-embedder", "service exited before it was ready",
				"bought a used thermostat online and it says someone else owns it", "fusion.<wbr>k", "<svg"},
			absent: []string{"<script", "Statistics were not computed", "Means only", "judged-only"},
		},
		{
			// The demo judges about three documents a query: Judged@10
			// cannot pass ~0.3, so 0.18 is not "low" against it.
			name: "ceiling recorded",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					lb.SetCeiling(runs.Ceiling{Primary: 0.6, Scorecard: map[string]float64{"Judged@10": 0.3}})
				})
			},
			want: []string{"<th>% ceil</th>", "71.6%", "(ceiling 0.6000 on this golden set: the score of its ideal ranking; % ceil = primary / ceiling)",
				"Reachable on this golden set: 0.3000", "warning threshold: 0.1500, 50% of it"},
			absent: []string{"trials have Judged@10 below"},
		},
		{
			name: "judged-only values recorded",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					v := map[string]map[string]float64{}
					for _, e := range lb.Trials {
						v[e.Name] = map[string]float64{"NDCG@10": 0.9123}
					}
					lb.SetJudgedOnly(v)
				})
			},
			want: []string{"<th>NDCG@10 judged-only</th>", `<td class="num">0.9123</td>`},
		},
		{
			name: "run from before the statistics step",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					lb.Stats, lb.HeldOut = nil, nil
					for i := range lb.Trials {
						lb.Trials[i].Comparison, lb.Trials[i].MetricComparisons, lb.Trials[i].CategoryIntervals = nil, nil, nil
					}
				})
			},
			want:   []string{"Statistics were not computed", "Means only: no intervals", "No significance was computed"},
			absent: []string{"interval of the decision", "Held-out estimate", "<strong>Statistics:</strong>"},
		},
		{
			name: "no leaderboard.json",
			change: func(t *testing.T, run *runs.Run) {
				remove(t, run, "leaderboard.json")
			},
			want: []string{"leaderboard.json is missing", "rrf-k200-bm25-0.7", "<svg"},
		},
		{
			name: "no golden set snapshot",
			change: func(t *testing.T, run *runs.Run) {
				remove(t, run, "golden.json")
			},
			want:   []string{"<code>q042</code>", "Worst queries"},
			absent: []string{"bought a used thermostat online"},
		},
		{
			name: "no per-query results for the best trial",
			change: func(t *testing.T, run *runs.Run) {
				remove(t, run, "trials/002.queries.jsonl") // the best trial
			},
			want: []string{"Per-query results of the best trial could not be read", "No scored query."},
		},
		{
			name: "every trial failed",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					for i := range lb.Trials {
						lb.Trials[i].Status, lb.Trials[i].Error = runs.StatusFailed, "backend down"
					}
				})
			},
			want:   []string{"No trial succeeded", "No per-category scores", "nothing to chart", "backend down"},
			absent: []string{"<svg", "Worst queries"},
		},
		{
			name: "a pruned trial",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					for i := range lb.Trials {
						if lb.Trials[i].Name == "linear-minmax" {
							lb.Trials[i].Status, lb.Trials[i].Fraction = runs.StatusPruned, 0.25
						}
					}
				})
			},
			want:   []string{`<tr class="pruned">`, "on 25% of queries", "pruned trials at their partial score"},
			absent: []string{"Parameter importance", "Parallel coordinates"}, // a grid
		},
		{
			name: "a study",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					n := len(lb.Trials)
					for i := range n {
						lb.Trials[i].Sampler = "tpe"
						e := lb.Trials[i]
						e.Name, e.Index, e.Primary = e.Name+"-again", e.Index+100, e.Primary-0.01
						lb.Trials = append(lb.Trials, e)
					}
				})
			},
			want: []string{"<h2>Parameter importance</h2>", "η² (correlation ratio)", `class="importance-chart"`, "<h2>Parallel coordinates</h2>", `class="parallel-chart"`},
		},
		{
			name: "no coverage metric",
			change: func(t *testing.T, run *runs.Run) {
				editLeaderboard(t, run, func(lb *runs.Leaderboard) {
					for i := range lb.Trials {
						delete(lb.Trials[i].Scorecard, report.CoverageMetric)
					}
				})
			},
			want: []string{"judged coverage is unknown"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := loadFixture(t)
			tc.change(t, run)
			got := render(t, run)
			for _, w := range tc.want {
				if !bytes.Contains(got, []byte(w)) {
					t.Errorf("report lacks %q", w)
				}
			}
			for _, a := range tc.absent {
				if bytes.Contains(got, []byte(a)) {
					t.Errorf("report contains %q", a)
				}
			}
		})
	}
}

// editLeaderboard rewrites the run's leaderboard files after change.
func editLeaderboard(t *testing.T, run *runs.Run, change func(*runs.Leaderboard)) {
	t.Helper()
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	change(&lb)
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, run *runs.Run, name string) {
	t.Helper()
	if err := os.Remove(filepath.Join(run.Dir, name)); err != nil {
		t.Fatal(err)
	}
}

// TestRenderEscapes renames trials and errors to markup: the page must show
// it as text, in the tables and inside the SVG charts.
func TestRenderEscapes(t *testing.T) {
	run := loadFixture(t)
	lb, err := run.ReadLeaderboard()
	if err != nil {
		t.Fatal(err)
	}
	const evil = `<script>alert("x")</script>`
	for i := range lb.Trials {
		e := &lb.Trials[i]
		switch e.Status {
		case runs.StatusOK:
			e.Params["fusion.method"] = evil
		default:
			e.Error = evil
			e.Name = evil
		}
	}
	lb.Trials[0].Name = `best & <b>bold</b>`
	if err := run.WriteLeaderboard(lb); err != nil {
		t.Fatal(err)
	}
	got := render(t, run)
	if bytes.Contains(got, []byte("<script")) || bytes.Contains(got, []byte("<b>bold")) {
		t.Fatal("markup from the run reached the page unescaped")
	}
	for _, want := range []string{"&lt;script&gt;", "best &amp; &lt;b&gt;bold&lt;/b&gt;"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("report lacks the escaped %q", want)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts report.Options
		ok   bool
	}{
		{"defaults", report.DefaultOptions(), true},
		{"threshold above 1", report.Options{JudgedWarn: 1.5, Worst: 1, TopDocs: 1}, false},
		{"negative worst", report.Options{JudgedWarn: 0.5, Worst: -1, TopDocs: 1}, false},
		{"negative top", report.Options{JudgedWarn: 0.5, Worst: 1, TopDocs: -3}, false},
		{"nothing shown", report.Options{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// BenchmarkRender renders the fixture run's report (5 trials, 45 queries).
func BenchmarkRender(b *testing.B) {
	run, err := runs.Load(fixture)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := report.Render(io.Discard, run, report.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
