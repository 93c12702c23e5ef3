package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/treceval/trecevaltest"
)

var (
	buildOnce sync.Once
	tuneBin   string
	buildErr  error
	buildDir  string
)

// tuneBinary builds cmd/tune once per test binary and returns its path.
func tuneBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "tune-eval-test")
		if buildErr != nil {
			return
		}
		tuneBin = filepath.Join(buildDir, "tune")
		out, err := exec.Command("go", "build", "-o", tuneBin, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			tuneBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, tuneBin)
	}
	return tuneBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// runTune runs the built binary in dir and returns stdout, stderr and the
// exit code.
func runTune(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(tuneBinary(t), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run tune: %v", err)
	}
	return stdout.String(), stderr.String(), code
}

// TestEvalMatchesTrecEval runs `tune eval` on trec_eval 10.0's own test
// files and requires every expected line of an implemented measure, per
// query and "all", to appear byte for byte, and no other line to appear.
func TestEvalMatchesTrecEval(t *testing.T) {
	trecevaltest.Run(t, func(t *testing.T, data string, c trecevaltest.Case) string {
		stdout, stderr, code := runTune(t, data, append([]string{"eval"}, c.Args...)...)
		if code != 0 {
			t.Fatalf("tune eval %s: exit %d\n%s", strings.Join(c.Args, " "), code, stderr)
		}
		return stdout
	})
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalCLI covers the command's own behaviour on small hand-made files.
func TestEvalCLI(t *testing.T) {
	dir := t.TempDir()
	// q1: ranking d1(rel 1) d2(0) d3(unjudged); q2 is absent from the run;
	// q9 is in the run but not in the qrels and is skipped without -c.
	writeFile(t, dir, "qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d4 2\nq2 0 x 1\n")
	writeFile(t, dir, "run", "q1 Q0 d1 1 3.0 tag\nq1 Q0 d2 2 2.0 tag\nq1 Q0 d3 3 1.0 tag\nq9 Q0 d1 1 1 tag\n")
	writeFile(t, dir, "split.run", "q1 Q0 d1 1 3.0 tag\nq9 Q0 d1 1 1 tag\nq1 Q0 d2 2 2.0 tag\nq1 Q0 d3 3 1.0 tag\n")
	writeFile(t, dir, "bad.run", "q1 Q0 d1 1 3.0 tag\nq1 Q0 d2 two 2.0 tag\n")
	writeFile(t, dir, "bad.qrels", "q1 0 d1\n")
	// the same judgments as qrels, in BEIR's qrels/test.tsv form
	writeFile(t, dir, "beir.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\nq1\td4\t2\nq2\tx\t1\n")
	writeFile(t, dir, "dup.run", "q1 Q0 d1 1 3.0 tag\nq1 Q0 d1 2 2.0 tag\n")
	// a 0-4 scale: relevant at -l 2 are a, b, c, g (R = 4); the run
	// ranks d(1) c(2) b(3) a(4) e(0)
	writeFile(t, dir, "scale4.qrels", "q 0 a 4\nq 0 b 3\nq 0 c 2\nq 0 d 1\nq 0 e 0\nq 0 g 4\n")
	writeFile(t, dir, "scale4.run", "q Q0 d 1 5 t\nq Q0 c 2 4 t\nq Q0 b 3 3 t\nq Q0 a 4 2 t\nq Q0 e 5 1 t\n")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // exact, when set
		contains string // in stdout or stderr
	}{
		// num_rel = 2 (d1, d4); P_5 = 1/5; recall_5 = 1/2; map = (1/1)/2.
		{"flags", []string{"eval", "--qrels", "qrels", "--run", "run", "-m", "num_q", "-m", "map", "-m", "P.5", "-m", "recall.5"}, 0,
			"num_q                 \tall\t1\nmap                   \tall\t0.5000\nP_5                   \tall\t0.2000\nrecall_5              \tall\t0.5000\n", ""},
		// -c adds q2 as empty: map = (0.5 + 0) / 2.
		{"complete", []string{"eval", "-c", "-mmap", "-mnum_q", "qrels", "run"}, 0,
			"num_q                 \tall\t2\nmap                   \tall\t0.2500\n", ""},
		// -l2: only d4 is relevant and it is not retrieved.
		{"level glued", []string{"eval", "-l2", "-mnum_rel", "-mnum_rel_ret", "qrels", "run"}, 0,
			"num_rel               \tall\t1\nnum_rel_ret           \tall\t0\n", ""},
		// 0-4 at -l 2: P_5 = 3/5, recall_5 = 3/4, map = (1/2 + 2/3 + 3/4) / 4
		{"scale 0-4 level 2", []string{"eval", "-l", "2", "-m", "P.5", "-m", "recall.5", "-m", "map", "scale4.qrels", "scale4.run"}, 0,
			"map                   \tall\t0.4792\nP_5                   \tall\t0.6000\nrecall_5              \tall\t0.7500\n", ""},
		// q1's lines split by q9's: read whole and evaluated the same.
		{"split query", []string{"eval", "-m", "map", "-m", "num_ret", "qrels", "split.run"}, 0,
			"num_ret               \tall\t3\nmap                   \tall\t0.5000\n", ""},
		{"per query", []string{"eval", "-q", "-m", "recip_rank", "qrels", "run"}, 0,
			"recip_rank            \tq1\t1.0000\nrecip_rank            \tall\t1.0000\n", ""},
		{"csv", []string{"eval", "--format", "csv", "-m", "success.1", "qrels", "run"}, 0,
			"measure,query,value\nsuccess_1,all,1.0000\n", ""},
		{"beir qrels", []string{"eval", "--qrels", "beir.tsv", "--run", "run", "-m", "num_q", "-m", "map", "-m", "P.5", "-m", "recall.5"}, 0,
			"num_q                 \tall\t1\nmap                   \tall\t0.5000\nP_5                   \tall\t0.2000\nrecall_5              \tall\t0.5000\n", ""},
		{"bad run line", []string{"eval", "qrels", "bad.run"}, 2, "", `bad.run:2: rank must be a plain non-negative integer (got "two")`},
		{"bad qrels line", []string{"eval", "bad.qrels", "run"}, 2, "", `bad.qrels:1: expected 4 fields`},
		{"duplicate doc", []string{"eval", "qrels", "dup.run"}, 2, "", `document "d1" retrieved twice`},
		{"unknown measure", []string{"eval", "-m", "nope", "qrels", "run"}, 2, "", `measure "nope": unknown`},
		{"bad cutoff", []string{"eval", "-m", "P.x", "qrels", "run"}, 2, "", `measure "P": parameters must be comma-separated numbers (got "x")`},
		{"missing run", []string{"eval", "--qrels", "qrels"}, 2, "", "--qrels and --run are both required"},
		{"missing file", []string{"eval", "qrels", "nothere"}, 2, "", "nothere"},
		{"bad format", []string{"eval", "--format", "xml", "qrels", "run"}, 2, "", `got "xml"`},
		{"skipped query warns", []string{"eval", "-m", "num_q", "qrels", "run"}, 0, "", `1 run queries have no judgments in qrels and were skipped (first: "q9")`},
		{"unimplemented warns", []string{"eval", "-m", "infAP", "-m", "num_q", "qrels", "run"}, 0, "", `"infAP" is not implemented`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runTune(t, dir, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", stdout, tt.stdout)
			}
			if tt.contains != "" && !strings.Contains(stdout+stderr, tt.contains) {
				t.Errorf("output does not contain %q\nstdout:\n%s\nstderr:\n%s", tt.contains, stdout, stderr)
			}
			if tt.code != 0 && stdout != "" {
				t.Errorf("failure wrote to stdout: %q", stdout)
			}
		})
	}
}
