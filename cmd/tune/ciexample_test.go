package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIExample runs the example CI's shell steps
// (scripts/ci-example/check.sh, which the GitHub Actions workflow runs):
// with the committed settings and baseline the check passes and writes the
// Markdown summary (also to the job summary); with a gate the service
// cannot meet it fails with exit 1, the summary saying FAIL. The workflow
// is valid YAML running that script.
func TestCIExample(t *testing.T) {
	root := absPath(t, "../..")
	data, err := os.ReadFile(filepath.Join(root, "scripts", "ci-example", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On map[string]struct {
			Paths []string `yaml:"paths"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("github-actions.yml: %v", err)
	}
	for _, event := range []string{"pull_request", "push"} {
		if !slices.Contains(wf.On[event].Paths, "scripts/ci-example/**") {
			t.Errorf("the workflow's %s trigger has no path filter naming scripts/ci-example/**: %v", event, wf.On[event].Paths)
		}
	}
	runsScript, uploads, fetches := false, false, false
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			runsScript = runsScript || strings.TrimSpace(s.Run) == "scripts/ci-example/check.sh"
			uploads = uploads || strings.HasPrefix(s.Uses, "actions/upload-artifact@") && strings.Contains(s.With["path"], "artifacts")
			fetches = fetches || strings.Contains(s.Run, "gh run download") && strings.Contains(s.Run, "BASELINE=")
		}
	}
	if !runsScript || !uploads || !fetches {
		t.Errorf("the workflow runs check.sh %v, uploads the artifacts %v, fetches the previous baseline %v: want all", runsScript, uploads, fetches)
	}

	strict := filepath.Join(t.TempDir(), "strict.yaml")
	base, err := os.ReadFile(filepath.Join(root, "scripts", "ci-example", "tune.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	settings := strings.ReplaceAll(string(base), "../../experiments/", root+"/experiments/") + `  - "NDCG@10 >= ref + 0.5"` + "\n"
	if err := os.WriteFile(strict, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first case's artifacts are the next one's previous run.
	artifacts := filepath.Join(t.TempDir(), "artifacts")
	previous := filepath.Join(artifacts, "baseline.json")
	for _, tc := range []struct {
		name     string
		config   string
		baseline string
		code     int
		want     []string
	}{
		{"committed settings pass", "", "", 0, []string{"## Search quality: PASS", "### Against baseline scripts/ci-example/golden.baseline.json", "| PASS | NDCG@10 >= ref - 0.01 (ref 0.7238: >= 0.7138) | 0.7238 |  |"}},
		{"the previous run's artifact as the baseline", "", previous, 0, []string{"## Search quality: PASS", "### Against baseline " + previous, "| PASS | NDCG@10 >= ref - 0.01 (ref 0.7238: >= 0.7138) | 0.7238 |  |"}},
		{"an unmet gate fails", strict, "", 1, []string{"## Search quality: FAIL", "| FAIL | NDCG@10 >= ref + 0.5 (ref 0.7238: >= 1.2238) | 0.7238 |  |"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			jobSummary := filepath.Join(work, "job-summary.md")
			cmd := exec.Command("sh", "scripts/ci-example/check.sh")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "TUNE="+tuneBinary(t), "WORK="+work, "ADDR="+freeAddr(t), "CONFIG="+tc.config, // "" is the script's default
				"BASELINE="+tc.baseline, "ARTIFACTS="+artifacts,
				"GITHUB_STEP_SUMMARY="+jobSummary, "PR_NUMBER=", "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("check.sh: exit %d, want %d\n%s", code, tc.code, out)
			}
			summary, err := os.ReadFile(filepath.Join(work, "summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(summary), w) {
					t.Errorf("summary lacks %q:\n%s", w, summary)
				}
			}
			if posted, _ := os.ReadFile(jobSummary); string(posted) != string(summary) {
				t.Errorf("the job summary is not the summary:\n%s", posted)
			}
			for _, f := range []string{"quality.json", "baseline.json"} {
				if _, err := os.Stat(filepath.Join(artifacts, f)); err != nil {
					t.Errorf("artifact %s: %v", f, err)
				}
			}
		})
	}
}
