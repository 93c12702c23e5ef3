package judging_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

func TestRunDatasetID(t *testing.T) {
	for _, tc := range []struct{ name, info, want string }{
		{"dataset_id recorded", `{"dataset_id": "help", "path": "/x/golden.json"}`, "help"},
		{"BEIR folder", `{"path": "/data/scifact"}`, "scifact"},
		{"golden file", `{"path": "sets/billing.yaml"}`, "billing"},
		{"demo recorded before dataset_id", `{"path": "/cache/fusiontune/demo-0123456789ab/golden.json"}`, "demo"},
		{"no snapshot", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.info != "" {
				if err := os.WriteFile(filepath.Join(dir, "golden.json.sha256.json"), []byte(tc.info), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := dataset.RunDatasetID(&runs.Run{Dir: dir}); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSelectTrials(t *testing.T) {
	lb := runs.Leaderboard{Trials: []runs.Entry{
		{Name: "a", Status: runs.StatusOK}, {Name: "a2", Status: runs.StatusOK, SameAs: "a"},
		{Name: "b", Status: runs.StatusOK}, {Name: "c", Status: runs.StatusOK}, {Name: "f", Status: runs.StatusFailed},
	}}
	for _, tc := range []struct {
		spec, want, err string
	}{
		{"", "a b c", ""},
		{"top:2", "a b", ""},
		{"all", "a b c", ""},
		{"c, a2", "c a2", ""},
		{"top:x", "", `--trials "top:x": want top:N with N >= 1, all, or trial names separated by commas`},
		{"f,zz", "", "--trials: trial \"f\" did not succeed (failed)\n--trials: no trial \"zz\" in the run"},
	} {
		got, err := judging.SelectTrials(lb, tc.spec)
		names := ""
		for i, e := range got {
			if i > 0 {
				names += " "
			}
			names += e.Name
		}
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) || (err == nil && names != tc.want) {
			t.Errorf("%q: got %q, %v; want %q, %q", tc.spec, names, err, tc.want, tc.err)
		}
	}
}
