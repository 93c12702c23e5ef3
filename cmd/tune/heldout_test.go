package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeldOutEstimate: a sweep on the dev split reports the chosen trial's
// score on the held-out test split beside its dev score, in the
// leaderboard and its JSON, and keeps the test queries' results apart.
func TestHeldOutEstimate(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  engine:\n    dense:\n      model: hash-384\n")
	stdout, stderr, code := e.run("--experiments", policyFile(t, "significant.json"), "--split", "dev")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	mustContain(t, "stdout", stdout, "held-out estimate: hybrid scores ", "on the test split (40 queries) vs ",
		"select, then confirm: hybrid vs baseline: dev Δ +", "one pre-planned comparison on the held-out queries", "of the dev gain")
	run := e.runDirs()[0]
	var lb struct {
		Trials []struct {
			Name    string  `json:"name"`
			Primary float64 `json:"primary"`
		} `json:"trials"`
		HeldOut *struct {
			Trial      string  `json:"trial"`
			Split      string  `json:"split"`
			Queries    int     `json:"queries"`
			Primary    float64 `json:"primary"`
			DevPrimary float64 `json:"dev_primary"`
		} `json:"held_out"`
	}
	data, _ := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	h := lb.HeldOut
	if h == nil || h.Trial != "hybrid" || h.Split != "test" || h.Queries != 40 || h.DevPrimary != lb.Trials[0].Primary || h.Primary <= 0 {
		t.Fatalf("held_out = %+v (best %+v)", h, lb.Trials[0])
	}
	dev := queryIDs(t, filepath.Join(run, "trials", "000.queries.jsonl"))
	test := queryIDs(t, filepath.Join(run, "heldout.queries.jsonl"))
	if len(dev) != 45 || len(test) != 45 {
		t.Errorf("%d dev and %d test queries, want 45 and 45", len(dev), len(test))
	}
	for id := range test {
		if dev[id] {
			t.Errorf("query %s is in both splits", id)
		}
	}
}

func queryIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var q struct {
			ID string `json:"query_id"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		ids[q.ID] = true
	}
	return ids
}
