package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSettings runs `tune check` on every settings fixture under
// testdata/settings (*.good.yaml, *.bad.yaml), and on a good one with a
// bad environment variable, comparing stdout and stderr with golden files
// (<case>.stdout, <case>.stderr; -update rewrites them). Every problem
// names file:line:col, or the environment variable that set the value,
// the key, and the valid keys or a did-you-mean.
func TestCheckSettings(t *testing.T) {
	type tc struct {
		name string
		args []string
		env  []string
		code int
	}
	var cases []tc
	files, err := filepath.Glob("testdata/settings/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		code := 0
		if strings.Contains(base, ".bad.") {
			code = 2
		}
		cases = append(cases, tc{name: strings.TrimSuffix(base, ".yaml"), args: []string{"check", base}, code: code})
	}
	cases = append(cases,
		tc{name: "env-type", args: []string{"check", "demo.good.yaml"}, env: []string{"FUSIONTUNE_EVAL_CONCURRENCY=abc"}, code: 2},
		tc{name: "env-range", args: []string{"check", "demo.good.yaml"}, env: []string{"FUSIONTUNE_EVAL_K=0", "FUSIONTUNE_EVAL_TIMEOUT=-1s"}, code: 2},
		tc{name: "env-path", args: []string{"check", "demo.good.yaml"}, env: []string{"FUSIONTUNE_DATASET_JUDGMENTS=nope.qrels"}, code: 2},
		tc{name: "kind-settings", args: []string{"check", "--kind", "settings", "demo.good.yaml"}, code: 0},
	)
	if len(cases) < 10 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(tuneBinary(t), c.args...)
			cmd.Dir = "testdata/settings"
			cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir()), c.env...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if code := exitCodeOf(t, cmd.Run()); code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, stderr.String())
			}
			// The working directory, which a message about a path from the
			// environment names, differs between machines.
			wd, err := filepath.Abs(cmd.Dir)
			if err != nil {
				t.Fatal(err)
			}
			for ext, got := range map[string]string{".stdout": stdout.String(), ".stderr": strings.ReplaceAll(stderr.String(), wd, "$WD")} {
				golden := filepath.Join("testdata/settings", c.name+ext)
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("%s:\n%s\nwant:\n%s", ext, got, want)
				}
			}
		})
	}
}
