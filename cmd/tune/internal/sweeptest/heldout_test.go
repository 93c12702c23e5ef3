package sweeptest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/tuner"
)

// hashSettings are tune.yaml's lines for a quick dense retriever.
const hashSettings = "runs_dir: runs\neval:\n  concurrency: 4\nbackend:\n  engine:\n    dense:\n      model: hash-384\n"

// significantFile is the experiment file whose hybrid beats the
// dense-only baseline on the demo, as an absolute path.
func significantFile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "significant.json"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The sweeps below verify as many replayed trials live as tune sweep
// does by default (tuner.DefaultVerify), so their trials' per-query
// records are on disk.

// leaderboardText is the sweep's leaderboard as tune leaderboard --wide
// prints it: its notes on whole lines, so that no phrase is broken.
func leaderboardText(t *testing.T, r *sweeptest.Result) string {
	t.Helper()
	var b bytes.Buffer
	lb := r.Leaderboard
	lb.Width = -1
	if err := lb.Render(&b, "text"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestHeldOutEstimate: a sweep on the dev split reports the chosen trial's
// score on the held-out test split beside its dev score, in the
// leaderboard and its JSON, and keeps the test queries' results apart.
func TestHeldOutEstimate(t *testing.T) {
	exp := significantFile(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"tune.yaml": hashSettings + "dataset:\n  split: dev\n"})
	r := sweeptest.Sweep(t, "tune.yaml", exp, sweeptest.Options{Verify: tuner.DefaultVerify})
	mustContain(t, "leaderboard", leaderboardText(t, r), "held-out estimate: hybrid scores ", "on the test split (40 queries) vs ",
		"select, then confirm: hybrid vs baseline: dev Δ +", "one pre-planned comparison on the held-out queries", "of the dev gain")
	run := r.Run.Dir
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

// TestSelectThenConfirmByDefault: a golden set of at least 100 judged
// queries (the demo's 90, 80 of them judged, plus copies of its first 20
// judged ones) is split dev/test without dataset.split: the sweep says
// so, tunes on dev and confirms the winner on the held-out queries;
// dataset.split all keeps every query.
func TestSelectThenConfirmByDefault(t *testing.T) {
	var g struct {
		Categories []string         `json:"categories"`
		Queries    []map[string]any `json:"queries"`
	}
	data, err := os.ReadFile("../../../../experiments/demo/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, orig := range g.Queries[:90] {
		if orig["expected_passages"] == nil || copied == 20 {
			continue
		}
		q := map[string]any{}
		for k, v := range orig {
			q[k] = v
		}
		q["id"] = q["id"].(string) + "-copy"
		g.Queries = append(g.Queries, q)
		copied++
	}
	big, _ := json.Marshal(g)
	corpus, err := filepath.Abs("../../../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	exp := significantFile(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	base := hashSettings + "dataset:\n  path: golden100.json\n  corpus: " + corpus + "\n"
	writeFiles(t, map[string]string{"golden100.json": string(big), "split.yaml": base, "all.yaml": base + "  split: all\n"})
	for _, tc := range []struct {
		name, settings string
		split          bool
		queries        int
	}{
		{"100 judged queries: split by default", "split.yaml", true, 55},
		{"split all", "all.yaml", false, 110},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sweeptest.Sweep(t, tc.settings, exp, sweeptest.Options{Verify: tuner.DefaultVerify})
			if got := strings.Contains(r.Log, "select, then confirm: 100 judged queries (>= 100): tuning on the dev split (55 queries)"); got != tc.split {
				t.Errorf("split note %v, want %v:\n%s", got, tc.split, r.Log)
			}
			if got := strings.Contains(leaderboardText(t, r), "select, then confirm: hybrid vs baseline"); got != tc.split {
				t.Errorf("confirmation line %v, want %v:\n%s", got, tc.split, leaderboardText(t, r))
			}
			if n := len(queryIDs(t, filepath.Join(r.Run.Dir, "trials", "000.queries.jsonl"))); n != tc.queries {
				t.Errorf("%d queries tuned on, want %d", n, tc.queries)
			}
		})
	}
}
