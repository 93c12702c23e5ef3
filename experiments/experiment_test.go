package experiments_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// TestExperimentFileFixtures loads testdata/experiments/*.good.* and
// *.bad.*: a good file's expanded trials must match its .out golden file, a
// bad file's error its .err golden file (rewrite both with -update).
func TestExperimentFileFixtures(t *testing.T) {
	paths, err := filepath.Glob("testdata/experiments/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range paths {
		if ext := filepath.Ext(path); ext == ".err" || ext == ".out" {
			continue
		}
		n++
		bad := strings.Contains(filepath.Base(path), ".bad.")
		t.Run(filepath.Base(path), func(t *testing.T) {
			var got string
			ef, err := experiments.LoadExperimentFile(path)
			if err == nil {
				var trials []experiments.TrialSpec
				var warnings []string
				trials, warnings, err = ef.Expand()
				if err == nil {
					got = describeTrials(ef, trials, warnings)
				}
			}
			golden := path + ".out"
			if bad {
				if err == nil {
					t.Fatalf("loaded without error; want one:\n%s", got)
				}
				var ps experiments.Problems
				if !errors.As(err, &ps) {
					t.Errorf("error is %T, want experiments.Problems", err)
				}
				got = err.Error() + "\n"
				golden = path + ".err"
			} else if err != nil {
				t.Fatalf("unexpected error:\n%v", err)
			}
			compareGolden(t, golden, got)
		})
	}
	if n < 10 {
		t.Fatalf("only %d fixtures found", n)
	}
}

func describeTrials(ef *experiments.ExperimentFile, trials []experiments.TrialSpec, warnings []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name=%s seed=%d trials=%d sampler=%q budget=%d space=%d\n", ef.Name, ef.Seed, len(trials), ef.Sampler, ef.Trials, len(ef.Space))
	for _, t := range trials {
		fmt.Fprintf(&b, "%s baseline=%v group=[%s] %s\n", t.Name, t.Baseline, t.Params.IndexKey(), t.Params)
	}
	for _, sp := range ef.Space {
		fmt.Fprintf(&b, "space %s %s low=%v high=%v choices=%v\n", sp.Param, sp.Type, sp.Low, sp.High, sp.Choices)
	}
	for _, w := range warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// TestShippedExperimentFiles checks that the files the tool ships parse and
// expand: the shortlist is a baseline plus a 27-point grid.
func TestShippedExperimentFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		min  int
	}{
		{"shortlist.json", experiments.Shortlist, 27},
		{"round1.json", experiments.Round1, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ef, err := experiments.ParseExperimentFile(tc.name, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			trials, _, err := ef.Expand()
			if err != nil {
				t.Fatal(err)
			}
			if len(trials) < tc.min {
				t.Errorf("%d trials, want at least %d", len(trials), tc.min)
			}
			if !trials[0].Baseline {
				t.Errorf("first trial %q is not the baseline", trials[0].Name)
			}
			onDisk, err := os.ReadFile(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if string(onDisk) != string(tc.data) {
				t.Errorf("embedded %s differs from the file", tc.name)
			}
		})
	}
}

func FuzzParseExperimentFile(f *testing.F) {
	paths, _ := filepath.Glob("testdata/experiments/*")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := experiments.ParseExperimentFile("fuzz.json", data)
		if err != nil {
			if ef != nil {
				t.Fatal("error with a non-nil file")
			}
			var ps experiments.Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %T is not a non-empty Problems: %v", err, err)
			}
			return
		}
		if len(ef.Grid) > 3 {
			return // keep expansion small
		}
		ef.Expand()
	})
}
