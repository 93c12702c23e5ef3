package main_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// newcomer runs tune from one directory with its own cache, as a user in a
// shell would.
type newcomer struct {
	t   *testing.T
	env []string
}

func (n newcomer) run(dir string, env []string, args ...string) (string, string, int) {
	n.t.Helper()
	cmd := exec.Command(tuneBinary(n.t), args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, n.env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		n.t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// must runs tune and fails the test unless it exits with code.
func (n newcomer) must(code int, dir string, args ...string) (string, string) {
	n.t.Helper()
	stdout, stderr, got := n.run(dir, nil, args...)
	if got != code {
		n.t.Fatalf("tune %s (in %s): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), dir, got, code, stdout, stderr)
	}
	return stdout, stderr
}

// TestNewcomerFirstHour plays a search engineer's first hour with their own
// data: a 12-document help-centre corpus with long guides and a
// golden set graded 1 (best) to 4 (least), written for this test. tune
// init scaffolds a project; the settings, edited as a newcomer would (a
// 1-is-best grade map, paths relative to the settings file), are checked
// with tune check and used from another directory; a judged id missing
// from the corpus is refused with a did-you-mean, before any run exists;
// the sweep runs in the default mode; #2 picks the second trial; --apply-best
// creates the production config with portable paths; tune export's qrels
// and run file give tune eval the leaderboard's NDCG@10.
func TestNewcomerFirstHour(t *testing.T) {
	root := t.TempDir()
	project, elsewhere := filepath.Join(root, "project"), filepath.Join(root, "elsewhere")
	for _, d := range []string{filepath.Join(project, "data"), elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"corpus.jsonl", "golden.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "newcomer", f))
		if err != nil {
			t.Fatal(err)
		}
		writeText(t, filepath.Join(project, "data", f), string(data))
	}
	n := newcomer{t: t, env: append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(root, "cache"))}

	// tune init: a commented tune.yaml, an experiment file that checks, and
	// a golden-set skeleton refused until its placeholders are written.
	n.must(0, project, "init", "--corpus", "data/corpus.jsonl", "--dir", "conf")
	conf := filepath.Join(project, "conf")
	n.must(0, project, "check", "conf/experiment.yaml")
	_, stderr := n.must(2, project, "check", "conf/golden.yaml")
	mustContain(t, "check of the skeleton", stderr, "conf/golden.yaml:", "placeholder")

	// The newcomer points the settings at their own golden set (on a
	// 1-is-best scale) and keeps the production config and the runs in
	// the project, every path relative to the settings file.
	settings := filepath.Join(conf, "tune.yaml")
	text := readFile(t, settings)
	for old, repl := range map[string]string{
		"  path: golden.yaml ":   "  path: ../data/golden.json\n  grades:\n    map: {1: 4, 2: 3, 3: 2, 4: 1}\n #",
		"  config: engine.yaml ": "  config: ../deploy/engine.yaml #",
		"runs_dir: tuning_runs":  "runs_dir: ../runs #",
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("tune init's tune.yaml lacks %q:\n%s", old, text)
		}
		text = strings.Replace(text, old, repl, 1)
	}
	writeText(t, settings, text)
	cfg := "../project/conf/tune.yaml"
	stdout, _ := n.must(0, elsewhere, "check", cfg)
	mustContain(t, "check of the settings", stdout, "ok "+cfg, "settings")

	// A settings typo names its line and what was meant.
	writeText(t, filepath.Join(conf, "typo.yaml"), "datset:\n  path: ../data/golden.json\n")
	_, stderr = n.must(2, elsewhere, "check", "../project/conf/typo.yaml")
	mustContain(t, "check of a typo", stderr, "typo.yaml:1:1", "dataset")

	// A judged id missing from the corpus: refused with a did-you-mean,
	// by tune check and by the sweep, which leaves no run behind.
	golden := readFile(t, filepath.Join(project, "data", "golden.json"))
	writeText(t, filepath.Join(project, "data", "typo.json"), strings.Replace(golden, `"hc-password-reset"`, `"hc-password_reset"`, 1))
	_, stderr = n.must(2, elsewhere, "check", "--config", cfg, "../project/data/typo.json")
	mustContain(t, "check of a missing id", stderr, `document "hc-password_reset" is not in the corpus (did you mean "hc-password-reset"`)
	_, stderr, code := n.run(elsewhere, []string{"FUSIONTUNE_DATASET_PATH=../project/data/typo.json"},
		"--config", cfg, "--experiments", "../project/conf/experiment.yaml")
	if code != 2 || !strings.Contains(stderr, `did you mean "hc-password-reset"`) {
		t.Fatalf("sweep on a golden set judging a missing id: exit %d, want 2\n%s", code, stderr)
	}
	if runs, _ := filepath.Glob(filepath.Join(project, "runs", "2*")); len(runs) != 0 {
		t.Fatalf("a refused sweep left runs behind: %v", runs)
	}

	// The sweep, in the default mode, from another directory, promoting
	// its winner into a production config that does not exist yet (--force:
	// 14 queries are too few pairs for the promotion policy's test).
	prod := filepath.Join(project, "deploy", "engine.yaml")
	stdout, stderr = n.must(0, elsewhere, "--config", cfg, "--experiments", "../project/conf/experiment.yaml", "--apply-best", "--force")
	mustContain(t, "sweep stdout", stdout, "% ceil", "grades 0-4")
	mustContain(t, "sweep stderr", stderr, "created production config", "replay:")
	runs, _ := filepath.Glob(filepath.Join(project, "runs", "2*"))
	if len(runs) != 1 {
		t.Fatalf("runs under the project: %v", runs)
	}
	written := readFile(t, prod)
	if strings.Contains(written, root) || !strings.Contains(written, "../data/corpus.jsonl") {
		t.Errorf("the production config is not portable:\n%s", written)
	}

	// The leaderboard: #1 and #2 by rank; compare and apply take #2.
	stdout, _ = n.must(0, elsewhere, "leaderboard", "--config", cfg, "--format", "json")
	var lb struct {
		Trials []struct {
			Rank      int                `json:"rank"`
			Name      string             `json:"name"`
			Mode      string             `json:"mode"`
			Scorecard map[string]float64 `json:"scorecard"`
		} `json:"trials"`
		Ceiling *struct {
			Primary float64 `json:"primary"`
		} `json:"ceiling"`
	}
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil {
		t.Fatalf("leaderboard json: %v\n%s", err, stdout)
	}
	if len(lb.Trials) != 12 || lb.Ceiling == nil || lb.Ceiling.Primary <= 0 {
		t.Fatalf("leaderboard: %d trials, ceiling %v", len(lb.Trials), lb.Ceiling)
	}
	modes := map[string]bool{}
	for _, tr := range lb.Trials {
		modes[tr.Mode] = true
	}
	if !modes["replay"] || !modes["verified"] {
		t.Errorf("trial modes %v: the default mode replays and verifies", modes)
	}
	first, second := lb.Trials[0], lb.Trials[1]
	if first.Rank != 1 || second.Rank != 2 {
		t.Fatalf("ranks %d, %d", first.Rank, second.Rank)
	}
	stdout, _ = n.must(0, elsewhere, "compare", "--config", cfg, "latest:#1", "latest:#2")
	mustContain(t, "compare #1 #2", stdout, first.Name, second.Name)
	_, stderr = n.must(0, elsewhere, "apply", "--config", cfg, "latest", "#2", "--force")
	mustContain(t, "apply #2", stderr, second.Name)

	// tune export: the golden set as TREC qrels (grades mapped: the best
	// judgment is 4) and #1's ranking; tune eval gives the leaderboard's
	// NDCG@10.
	n.must(0, elsewhere, "export", "--config", cfg, "--trial", "latest:#1", "--out", "exported")
	qrels := readFile(t, filepath.Join(elsewhere, "exported", "qrels.txt"))
	mustContain(t, "qrels", qrels, "q01 0 hc-password-reset 4", "q01 0 hc-login 2")
	stdout, _ = n.must(0, elsewhere, "eval", "--qrels", "exported/qrels.txt", "--run", "exported/run.trec", "-m", "ndcg_cut.10", "-c")
	fields := strings.Fields(stdout)
	if len(fields) != 3 || fields[0] != "ndcg_cut_10" || fields[1] != "all" {
		t.Fatalf("tune eval: %q", stdout)
	}
	got, err := strconv.ParseFloat(fields[2], 64)
	if err != nil {
		t.Fatal(err)
	}
	if want := first.Scorecard["NDCG@10"]; math.Abs(got-want) > 5e-5 {
		t.Errorf("tune eval on the export: NDCG@10 %.4f, leaderboard %.4f", got, want)
	}
}

func writeText(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
