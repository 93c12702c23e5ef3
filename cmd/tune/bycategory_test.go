package main_test

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLeaderboardByCategory: tune leaderboard --by category pivots the
// recorded leaderboard, each category's primary score a column, equal to
// the category scorecards of leaderboard.json; a bad --by is a usage error.
func TestLeaderboardByCategory(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n")
	run, _, _ := e.newRun(t, "--experiments", policyFile(t, "significant.json"))
	stdout, stderr, code := e.run("leaderboard", filepath.Base(run), "--by", "category", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) < 3 {
		t.Fatalf("csv: %v\n%s", err, stdout)
	}
	var lb struct {
		Trials []struct {
			Name       string                        `json:"name"`
			Categories map[string]map[string]float64 `json:"categories"`
		} `json:"trials"`
	}
	data, _ := os.ReadFile(filepath.Join(run, "leaderboard.json"))
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
		if out, stderr, code := e.run("leaderboard", "--by", "category", "--format", f); code != 0 || !strings.Contains(out, "paraphrase") {
			t.Errorf("--format %s: exit %d\n%s\n%s", f, code, out, stderr)
		}
	}
	if _, stderr, code := e.run("leaderboard", "--by", "topic"); code != 2 || !strings.Contains(stderr, `--by: want category or difficulty (got "topic")`) {
		t.Errorf("--by topic: exit %d\n%s", code, stderr)
	}
}
