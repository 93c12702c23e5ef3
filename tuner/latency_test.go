package tuner_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner"
)

// slowDelay is how long a search of a trial with custom.slow takes: far
// above the gates' 100 ms, so that no scheduling noise decides a test.
const slowDelay = 300 * time.Millisecond

// slowLandscapes opens landscapes whose searches sleep slowDelay while the
// running config has custom.slow set, and which report fixed stage timings
// (lexical 7 ms, dense 3 ms, fusion 1 ms) when asked: a backend with a
// deterministic latency.
type slowLandscapes struct{ landscapes }

func (f *slowLandscapes) Open(string, io.Writer) (backend.Backend, error) {
	return &slow{newLandscape()}, nil
}

type slow struct{ *landscape }

func (b *slow) Search(ctx context.Context, req backend.SearchRequest) (backend.SearchResponse, error) {
	b.mu.Lock()
	sleepy := b.live["custom.slow"] != nil
	b.mu.Unlock()
	if sleepy {
		time.Sleep(slowDelay)
	}
	resp, err := b.landscape.Search(ctx, req)
	if req.Timings {
		resp.Timings = &backend.StageTimings{LexicalMS: 7, DenseMS: 3, FusionMS: 1}
	}
	return resp, err
}

// latencyTrials: "slow-best" wins on quality (fusion.k at the landscape's
// optimum) but every search takes slowDelay; "fast" is worse and fast.
func latencyTrials() []experiments.TrialSpec {
	return []experiments.TrialSpec{
		{Name: "fast", Baseline: true, Params: experiments.Params{"fusion.k": 90.0, "fusion.weights.bm25": 0.3, "fusion.method": "rrf"}},
		{Name: "slow-best", Params: experiments.Params{"fusion.k": 52.0, "fusion.weights.bm25": 0.3, "fusion.method": "rrf", "custom.slow": true}},
	}
}

func parseGates(t *testing.T, texts ...string) []verdict.Gate {
	t.Helper()
	var out []verdict.Gate
	for _, s := range texts {
		g, err := verdict.ParseGate(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// TestLatencyGateAndConstraint: a latency gate fails the trial that wins
// on quality; as a score.constraint it excludes that trial, and the
// winner is the fast one. latency.json holds the finalists' repeats with
// the backend's stage timings, and leaderboard.json is the same bytes
// with and without the constraint.
func TestLatencyGateAndConstraint(t *testing.T) {
	run := func(t *testing.T, constraints ...string) *tuner.Outcome {
		c := runConfig(t, latencyTrials(), nil, "latency.p95 <= 100ms")
		c.Backend = &slowLandscapes{}
		c.Queries = landscapeQueries(6)
		c.Latency = &tuner.LatencyOptions{Finalists: 2, Repeats: 2}
		c.Constraints = parseGates(t, constraints...)
		out, err := tuner.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	free := run(t)
	if e, _ := free.Leaderboard.Best(); e.Name != "slow-best" {
		t.Fatalf("quality winner %q, want slow-best", e.Name)
	}
	if best, _ := free.Best(); best.Name != "slow-best" {
		t.Errorf("winner without constraints %q, want slow-best", best.Name)
	}
	if f := verdict.FailedGates(free.Gates); len(f) != 1 || !f[0].Measured || f[0].Value < 100 {
		t.Errorf("gates on slow-best %+v: want latency.p95 <= 100ms measured and failed", free.Gates)
	}
	lat, ok, err := free.Run.ReadLatency()
	if err != nil || !ok {
		t.Fatalf("latency.json: %v %v", ok, err)
	}
	sb, ok := lat.Find("slow-best")
	if !ok || sb.Sweep == nil || len(sb.Repeats) != 2 || sb.Median == nil || sb.Spread == nil {
		t.Fatalf("slow-best latency %+v: want a sweep measurement and 2 repeats", sb)
	}
	if got := sb.Median.Stages[backend.StageLexical]; got.P50MS != 7 || got.P95MS != 7 {
		t.Errorf("slow-best lexical stage %+v, want the backend's 7 ms", got)
	}
	if sb.Median.QPS <= 0 || sb.Spread.P95MinMS > sb.Spread.P95MaxMS {
		t.Errorf("slow-best median %+v spread %+v", *sb.Median, *sb.Spread)
	}
	if len(lat.Pareto) != 2 || lat.Pareto[0].Name != "fast" || lat.Pareto[1].Name != "slow-best" {
		t.Errorf("Pareto front %+v, want fast then slow-best", lat.Pareto)
	}

	bound := run(t, "latency.p95 <= 100ms")
	best, ok := bound.Best()
	if !ok || best.Name != "fast" {
		t.Fatalf("winner under the constraint %q (%v), want fast", best.Name, ok)
	}
	if len(verdict.FailedGates(bound.Gates)) != 0 {
		t.Errorf("gates on the constrained winner %+v, want them passed", bound.Gates)
	}
	lat, _, _ = bound.Run.ReadLatency()
	if sb, _ := lat.Find("slow-best"); !sb.Excluded || lat.Winner != "fast" {
		t.Errorf("latency.json: slow-best excluded %v, winner %q", sb.Excluded, lat.Winner)
	}
	if lat.P95LimitMS == nil || *lat.P95LimitMS != 100 {
		t.Errorf("latency.json: p95_limit_ms %v, want 100 (the report's threshold line)", lat.P95LimitMS)
	}
	// tune apply RUN, tune gate RUN: the run's winner is the constrained one.
	if e, err := runs.TrialOf(bound.Run, ""); err != nil || e.Name != "fast" {
		t.Errorf("TrialOf(run, \"\") = %q, %v; want the constrained winner fast", e.Name, err)
	}
	if e, err := runs.TrialOf(free.Run, ""); err != nil || e.Name != "slow-best" {
		t.Errorf("TrialOf(unconstrained run, \"\") = %q, %v; want slow-best", e.Name, err)
	}
	a, errA := os.ReadFile(filepath.Join(free.Run.Dir, "leaderboard.json"))
	b, errB := os.ReadFile(filepath.Join(bound.Run.Dir, "leaderboard.json"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("leaderboard.json differs with the constraint (%v, %v)", errA, errB)
	}
}

// TestLatencyConstraintNoWinner: when no trial meets the constraints the
// run fails, naming them.
func TestLatencyConstraintNoWinner(t *testing.T) {
	c := runConfig(t, latencyTrials(), nil)
	c.Backend = &slowLandscapes{}
	c.Queries = landscapeQueries(6)
	c.Constraints = parseGates(t, "latency.p95 <= 100ms", "primary >= 2")
	out, err := tuner.Run(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "score.constraints") {
		t.Fatalf("err %v, want no trial meeting score.constraints", err)
	}
	if _, ok := out.Best(); ok {
		t.Error("a winner although no trial meets the constraints")
	}
	if _, err := runs.TrialOf(out.Run, ""); err == nil || !strings.Contains(err.Error(), "no trial meets score.constraints") {
		t.Errorf("TrialOf without a winner: %v", err)
	}
}

func TestParseLatencyGate(t *testing.T) {
	tests := []struct {
		in      string
		metric  string
		value   float64
		wantErr string
	}{
		{"latency.p95 <= 40ms", verdict.LatencyP95, 40, ""},
		{"latency.p99 < 0.25s", verdict.LatencyP99, 250, ""},
		{"Latency.P50 <= 12", verdict.LatencyP50, 12, ""},
		{"latency.qps >= 100", verdict.LatencyQPS, 100, ""},
		{"latency.p90 <= 40ms", "", 0, "unknown latency metric"},
		{"latency.p95[a] <= 40ms", "", 0, "no [category]"},
		{"latency.p95 <= fast", "", 0, "milliseconds"},
		{"latency.p95 <= -1ms", "", 0, "milliseconds"},
		{"latency.qps >= 10ms", "", 0, "queries per second"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g, err := verdict.ParseGate(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || g.Metric != tt.metric || g.Value != tt.value {
				t.Fatalf("ParseGate = %+v, %v; want %s %v", g, err, tt.metric, tt.value)
			}
			if m := verdict.GateMetrics([]verdict.Gate{g}); len(m) != 0 {
				t.Errorf("GateMetrics %v: a latency gate needs no scorecard metric", m)
			}
		})
	}
}

func TestLatencyOptionsCheck(t *testing.T) {
	tests := []struct {
		o    tuner.LatencyOptions
		want string
	}{
		{tuner.DefaultLatencyOptions(), ""},
		{tuner.LatencyOptions{Finalists: -1, Repeats: 3}, "finalists: must be in [0, 1000]"},
		{tuner.LatencyOptions{Finalists: 3, Repeats: 0}, "repeats: must be in [1, 20]"},
		{tuner.LatencyOptions{Finalists: 3, Repeats: 21}, "repeats: must be in [1, 20]"},
	}
	for _, tt := range tests {
		got := strings.Join(tt.o.Check(), "; ")
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Check(%+v) = %q, want %q", tt.o, got, tt.want)
		}
	}
}
