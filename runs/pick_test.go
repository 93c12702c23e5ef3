package runs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// TestLeaderboardPick: every way a command names a trial. The fixture's
// leaderboard is a-tie, k=40, baseline, tpe-001, k=80.
func TestLeaderboardPick(t *testing.T) {
	lb := runs.NewLeaderboard("p", []string{"NDCG@10"}, fixtureTrials())
	for _, tc := range []struct {
		name, ref string
		want      string // trial name, "" for an error
		err       string // part of the error
	}{
		{"nothing is the best", "", "a-tie", ""},
		{"rank 1", "#1", "a-tie", ""},
		{"rank 3", "#3", "baseline", ""},
		{"last rank", "#5", "k=80", ""},
		{"rank past the end", "#6", "", "the leaderboard has 5 trials"},
		{"rank zero", "#0", "", "want #N with N a leaderboard rank from 1"},
		{"rank not a number", "#x", "", "want #N"},
		{"exact name", "k=40", "k=40", ""},
		{"exact name that prefixes none other", "baseline", "baseline", ""},
		{"unique prefix", "tpe", "tpe-001", ""},
		{"label", "tpe-001 k=12", "tpe-001", ""},
		{"label cut short by the text table", "tpe-001 k…", "tpe-001", ""},
		{"unique prefix, one letter", "a", "a-tie", ""},
		{"ambiguous prefix lists the candidates", "k=", "", `runs: trial "k=": ambiguous trial: 2 trials start with it: #2 k=40, #5 k=80`},
		{"unknown lists the trials", "zz", "", `runs: no trial "zz" in the leaderboard (trials: #1 a-tie, #2 k=40, #3 baseline, #4 tpe-001 k=12, #5 k=80)`},
		{"a bare number is not a rank", "2", "", `write #2 for the trial ranked 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := lb.Pick(tc.ref)
			if tc.want != "" {
				if err != nil || e.Name != tc.want {
					t.Errorf("Pick(%q) = %q, %v; want %q", tc.ref, e.Name, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Pick(%q) = %q, %v; want an error with %q", tc.ref, e.Name, err, tc.err)
			}
		})
	}
	if _, err := lb.Pick("k="); !errors.Is(err, runs.ErrAmbiguousTrial) {
		t.Errorf("ambiguous prefix: %v is not ErrAmbiguousTrial", err)
	}
	if _, err := (runs.Leaderboard{}).Pick(""); err == nil {
		t.Error("best of an empty leaderboard succeeded")
	}
}

// TestStoreResolvePaths: a run is found by id, prefix, latest, or any path
// to a run directory (inside the store or not, relative or absolute); a
// path to anything else is refused; Contains tells runs inside the store.
func TestStoreResolvePaths(t *testing.T) {
	root := t.TempDir()
	store, err := runs.Open(filepath.Join(root, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Create(runs.Manifest{}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	other, err := runs.Open(filepath.Join(root, "elsewhere"))
	if err != nil {
		t.Fatal(err)
	}
	away, err := other.Create(runs.Manifest{}, time.Date(2026, 1, 3, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	relAway, _ := filepath.Rel(root, away.Dir)
	for _, tc := range []struct {
		name, ref, want, err string
	}{
		{"latest", "latest", run.ID(), ""},
		{"id", run.ID(), run.ID(), ""},
		{"prefix", run.ID()[:9], run.ID(), ""},
		{"path inside", run.Dir, run.ID(), ""},
		{"absolute path outside", away.Dir, away.ID(), ""},
		{"relative path outside", relAway, away.ID(), ""},
		{"dot-dot path outside", "runs/../" + relAway, away.ID(), ""},
		{"not a run", "plain", "", `runs: "plain" is not a run directory (no manifest.json)`},
		{"not a run, path", "./plain", "", `runs: "./plain" is not a run directory`},
		{"no such directory", "gone/x", "", `runs: no run directory "gone/x"`},
		{"parent", "..", "", `is not a run directory`},
		{"unknown id", "nope", "", `runs: no run "nope" in`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := store.Resolve(tc.ref)
			if tc.want != "" {
				if err != nil || r.ID() != tc.want {
					t.Errorf("Resolve(%q) = %v, %v; want %s", tc.ref, r, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Resolve(%q) = %v; want an error with %q", tc.ref, err, tc.err)
			}
		})
	}
	if !store.Contains(run) || store.Contains(away) {
		t.Errorf("Contains: inside %v, outside %v", store.Contains(run), store.Contains(away))
	}
}
