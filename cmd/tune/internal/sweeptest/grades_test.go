package sweeptest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// gradedGolden writes a golden set over the demo corpus whose three
// judgments per query carry the grades given (best document first).
func gradedGolden(best, second, third int) string {
	queries := []struct{ id, text, d1, d2, d3 string }{
		{"q001", "how to top up boiler pressure with the filling loop", "kb-0028", "kb-0172", "kb-0030"},
		{"q005", "change Wi-Fi network on the thermostat after getting a new router", "kb-0108", "kb-0107", "kb-0110"},
		{"q007", "legionella protection cycle heating the cylinder to 60 degrees weekly", "kb-0080", "kb-0061", "kb-0224"},
		{"q008", "cancel Hearthwell Plus subscription", "kb-0138", "kb-0137", "kb-0131"},
	}
	var b strings.Builder
	b.WriteString(`{"queries": [`)
	for i, q := range queries {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id": %q, "query": %q, "meta": {"source": "test", "n": %d}, "expected_passages": [
			{"doc_id": %q, "relevance": %d}, {"doc_id": %q, "relevance": %d}, {"doc_id": %q, "relevance": %d}]}`,
			q.id, q.text, i, q.d1, best, q.d2, second, q.d3, third)
	}
	b.WriteString("]}")
	return b.String()
}

const gradesExperiment = `{"baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60}},
  "experiments": [{"name": "k=10", "params": {"fusion.k": 10}}]}`

// TestSweepGradeScales sweeps a golden set graded 0-4, and the same set
// graded 1 (best) to 4 with dataset.grades.map turning it into 0-4: both
// load, score on the 0-4 scale, record it in the snapshot, and give the
// same leaderboard. Before grade scales, grade 4 was refused.
func TestSweepGradeScales(t *testing.T) {
	corpus, err := filepath.Abs("../../../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		primary string
		trials  []map[string]any
		grades  map[string]any
	}
	sweep := func(t *testing.T, golden, grades, mode string) result {
		t.Helper()
		t.Setenv("XDG_CACHE_HOME", t.TempDir())
		t.Chdir(t.TempDir())
		writeFiles(t, map[string]string{"golden.json": golden, "exp.json": gradesExperiment,
			"tune.yaml": fmt.Sprintf("runs_dir: runs\neval: {concurrency: 4}\ndataset:\n  path: golden.json\n  corpus: %s\n%s", corpus, grades)})
		r := sweeptest.Sweep(t, "tune.yaml", "exp.json", sweeptest.Options{Mode: mode, Verify: tuner.DefaultVerify})
		run := r.Run.Dir
		if stdout := leaderboardText(t, r); !strings.Contains(stdout, "% ceil") || !strings.Contains(stdout, "on this golden set") {
			t.Errorf("leaderboard shows no ceiling:\n%s", stdout)
		}
		var lb struct {
			Primary string           `json:"primary"`
			Trials  []map[string]any `json:"trials"`
			Ceiling struct {
				Primary   float64            `json:"primary"`
				Scorecard map[string]float64 `json:"scorecard"`
			} `json:"ceiling"`
		}
		data, err := os.ReadFile(filepath.Join(run, "leaderboard.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &lb); err != nil {
			t.Fatal(err)
		}
		var snap struct {
			Grades map[string]any `json:"grades"`
		}
		data, err = os.ReadFile(filepath.Join(run, "golden.json.sha256.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatal(err)
		}
		// meta is kept: the snapshot's copy of the golden set has it.
		copyData, err := os.ReadFile(filepath.Join(run, "golden.json"))
		if err != nil || !strings.Contains(string(copyData), `"meta": {"source": "test"`) {
			t.Errorf("golden set copy lacks its meta (%v)", err)
		}
		// No trial beats the ideal ranking; NDCG@10 reaches 1 there.
		if c := lb.Ceiling; c.Primary <= 0 || c.Primary > 1 || c.Scorecard["NDCG@10"] != 1 {
			t.Errorf("ceiling %+v", c)
		}
		for _, tr := range lb.Trials {
			p, _ := tr["primary"].(float64)
			of, _ := tr["of_ceiling"].(float64)
			if of <= 0 || of > 1 || math.Abs(of-p/lb.Ceiling.Primary) > 1e-9 {
				t.Errorf("trial %v: of_ceiling %v, primary %v, ceiling %v", tr["name"], of, p, lb.Ceiling.Primary)
			}
		}
		return result{lb.Primary, lb.Trials, snap.Grades}
	}
	scale04 := sweep(t, gradedGolden(4, 3, 1), "", "")
	mapped := sweep(t, gradedGolden(1, 2, 4), "  grades:\n    map: {1: 4, 2: 3, 3: 2, 4: 1}\n", "")
	// Replay fuses the recorded candidate lists and scores them on the same
	// scale: the same numbers as live.
	replayed := sweep(t, gradedGolden(4, 3, 1), "", "replay")
	for name, r := range map[string]result{"0-4": scale04, "mapped": mapped, "replayed": replayed} {
		for _, want := range []string{"Avg_Grade@10/4", "grades 0-4: relevant >= 1, strong >= 3, exact >= 4"} {
			if !strings.Contains(r.primary, want) {
				t.Errorf("%s: primary %q lacks %q", name, r.primary, want)
			}
		}
		if r.grades["max"] != float64(4) || r.grades["strong"] != float64(3) {
			t.Errorf("%s: snapshot grades %v, want max 4, strong 3", name, r.grades)
		}
		if len(r.trials) != 2 {
			t.Fatalf("%s: %d trials", name, len(r.trials))
		}
	}
	if mapped.grades["map"] == nil {
		t.Errorf("mapped: snapshot grades lack the map: %v", mapped.grades)
	}
	for i := range scale04.trials {
		a, b, c := scale04.trials[i], mapped.trials[i], replayed.trials[i]
		if a["name"] != b["name"] || a["primary"] != b["primary"] || fmt.Sprint(a["scorecard"]) != fmt.Sprint(b["scorecard"]) {
			t.Errorf("trial %d differs: 0-4 %v %v, mapped %v %v", i, a["name"], a["primary"], b["name"], b["primary"])
		}
		if a["name"] != c["name"] || a["primary"] != c["primary"] || fmt.Sprint(a["scorecard"]) != fmt.Sprint(c["scorecard"]) {
			t.Errorf("trial %d differs: live %v %v %v, replayed %v %v %v", i, a["name"], a["primary"], a["scorecard"], c["name"], c["primary"], c["scorecard"])
		}
		if p, _ := a["primary"].(float64); p <= 0 {
			t.Errorf("trial %v: primary %v", a["name"], a["primary"])
		}
	}
}

// TestSweepGradeScaleSettingsErrors: bad dataset.grades settings stop a
// sweep before anything starts: as a settings error (which tune reports
// with exit 2, like every settings.Load error) or as the sweep's input
// error.
func TestSweepGradeScaleSettingsErrors(t *testing.T) {
	tests := []struct {
		name, grades, golden, want string
		env                        []string
	}{
		{name: "max from the environment", golden: gradedGolden(3, 2, 1), env: []string{"FUSIONTUNE_DATASET_GRADES_MAX", "101"},
			want: "grades.max: must be between 1 and 100 (got 101)"},
		{name: "max 0", grades: "  grades: {max: 0}\n", golden: gradedGolden(3, 2, 1), want: "grades.max: must be between 1 and 100 (got 0)"},
		{name: "strong below relevant", grades: "  grades: {relevant: 2, strong: 1}\n", golden: gradedGolden(3, 2, 1), want: "grades.strong: must be >= relevant (2)"},
		{name: "grade above max", grades: "  grades: {max: 3}\n", golden: gradedGolden(4, 2, 1),
			want: "golden.json:2:39: queries[0].expected_passages[0].relevance: grade out of range: dataset.grades.max is 3 (got 4)"},
		{name: "grade not mapped", grades: "  grades: {map: {1: 3, 2: 2}}\n", golden: gradedGolden(1, 2, 4), want: "grade 4 is not in dataset.grades.map (which maps 1->3 2->2)"},
		{name: "map key not a grade", grades: "  grades: {map: {best: 3}}\n", golden: gradedGolden(3, 2, 1), want: "best"},
		{name: "unknown key", grades: "  grades: {maximum: 4}\n", golden: gradedGolden(3, 2, 1), want: "maximum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			t.Chdir(t.TempDir())
			if tc.env != nil {
				t.Setenv(tc.env[0], tc.env[1])
			}
			writeFiles(t, map[string]string{"tune.yaml": "runs_dir: runs\ndataset:\n  path: golden.json\n" + tc.grades, "golden.json": tc.golden, "exp.json": gradesExperiment})
			var s settings.Settings
			err := settings.Load(&s, &s, "tune.yaml", nil, nil)
			if err == nil {
				_, err = s.PrepareSweep(tuner.SweepRequest{Experiments: "exp.json", Mode: "auto", Verify: tuner.DefaultVerify}, false, settings.SweepJudge{}, runs.NewRedactor(), &bytes.Buffer{})
				var ie *inputerr.Error
				if err != nil && !errors.As(err, &ie) {
					t.Errorf("err = %v: not an input error", err)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat("runs"); err == nil {
				t.Errorf("a runs directory was created")
			}
		})
	}
}
