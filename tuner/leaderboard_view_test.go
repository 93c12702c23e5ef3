package tuner_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/runs"
)

// TestLeaderboardByCategory: a swept run's leaderboard by category (tune
// leaderboard --by category) pivots the recorded leaderboard, each
// category's primary score a column, equal to the category scorecards of
// leaderboard.json, in every format.
func TestLeaderboardByCategory(t *testing.T) {
	exp, err := filepath.Abs(filepath.Join("testdata", "significant.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	if err := os.WriteFile("tune.yaml", []byte("runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  engine:\n    dense:\n      model: hash-384\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := sweeptest.Sweep(t, "tune.yaml", exp, sweeptest.Options{}).Run
	var out bytes.Buffer
	if err := runs.RenderView(&out, run, runs.View{By: "category"}, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil || len(rows) < 3 {
		t.Fatalf("csv: %v\n%s", err, out.String())
	}
	var lb struct {
		Trials []struct {
			Name       string                        `json:"name"`
			Categories map[string]map[string]float64 `json:"categories"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run.Dir, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if strings.Join(head[:4], ",") != "rank,trial,status,primary" || len(head) != 4+len(lb.Trials[0].Categories) {
		t.Fatalf("header %q", head)
	}
	for i, tr := range lb.Trials {
		row := rows[i+1]
		if row[1] != tr.Name {
			t.Fatalf("row %d is %q, want %q", i+1, row[1], tr.Name)
		}
		for j, cat := range head[4:] {
			got, err := strconv.ParseFloat(row[4+j], 64)
			if want := tr.Categories[cat]["primary"]; err != nil || got != want {
				t.Errorf("%s %s = %q, want %v", tr.Name, cat, row[4+j], want)
			}
		}
	}
	for _, f := range []string{"text", "md", "json"} {
		var b bytes.Buffer
		if err := runs.RenderView(&b, run, runs.View{By: "category"}, f); err != nil || !strings.Contains(b.String(), "paraphrase") {
			t.Errorf("format %s: %v\n%s", f, err, b.String())
		}
	}
}
