package sweeptest_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// TestPlanBudgetPriorAndRun: tune plan's budget of judged queries for an
// effect and the standard effects, from the prior without a run (golden
// testdata/plan/prior.stdout) and from a run's own variance and family (a
// sweep of the demo whose power line the log shows); an effect outside
// (0, 1] or not a number is an input error.
func TestPlanBudgetPriorAndRun(t *testing.T) {
	exp, err := filepath.Abs(filepath.Join("testdata", "significant.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(filepath.Join("testdata", "plan", "prior.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	if err := os.WriteFile("tune.yaml", []byte("runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  engine:\n    dense:\n      model: hash-384\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s settings.Settings
	if err := settings.Load(&s, &s, "tune.yaml", nil, nil); err != nil {
		t.Fatal(err)
	}
	effect, err := analysis.ParseEffect("0.02")
	if err != nil {
		t.Fatal(err)
	}
	var prior bytes.Buffer
	if err := analysis.PlanBudget(effect, nil, "", s.StatsOptions(0)).Write(&prior); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, prior.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(golden); err != nil || prior.String() != string(want) {
		t.Errorf("prior budget differs from %s (%v):\n%s", golden, err, prior.String())
	}

	for _, bad := range []string{"0", "1.5", "x"} {
		_, err := analysis.ParseEffect(bad)
		var ie *inputerr.Error
		if want := `--effect: must be a number in (0, 1] (got "` + bad + `")`; !errors.As(err, &ie) || err.Error() != want {
			t.Errorf("effect %q: err = %v, want the input error %q", bad, err, want)
		}
	}

	// From a run: its sd, its family (two trials, one compared).
	r := sweeptest.Sweep(t, "tune.yaml", exp, sweeptest.Options{})
	// The hybrid is significantly better: the verdict ships it, and the
	// power line, which beside it would only seem to contradict it, is
	// not printed; the run records its power for tune plan all the same.
	if strings.Contains(r.Log, "power: minimum detectable effect ") || r.Leaderboard.Power == nil {
		t.Errorf("sweep log prints the power line beside a verdict that ships, or the leaderboard lacks its power:\n%s", r.Log)
	}
	if v := r.Leaderboard.Verdict; v == nil || v.Kind != runs.VerdictShip || v.Trial != "hybrid" {
		t.Errorf("verdict %+v, want to ship hybrid", v)
	}
	b, err := analysis.PlanRun(0.04, r.Run, s.StatsOptions(0))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := b.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from run " + r.Run.ID() + ": sd ", "paired differences hybrid vs baseline", "+0.0400", "<- asked", "+0.0100"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan RUN lacks %q:\n%s", want, out.String())
		}
	}
}
