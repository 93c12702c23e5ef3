package main_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// badCase is one malformed input: how to feed it to the real binary and the
// file holding the error it must produce.
type badCase struct {
	name string   // kind/file
	args []string // tune's arguments, paths relative to the scratch directory
	env  []string
	err  string // the .err file (in the repository)
	own  bool   // the .err is this test's (rewritten by -update, see compare_test.go); else the parser tests'
}

// badCases lists every malformed-input fixture: the experiment files and
// golden sets of the experiments package (their .err files are the parser
// tests' golden files) and the settings, qrels, run files and corpora of
// testdata/bad (sweep/ holds experiment files refused after parsing).
func badCases(t *testing.T) []badCase {
	t.Helper()
	var out []badCase
	glob := func(pattern string) []string {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, p := range m {
			base := filepath.Base(p)
			if !strings.Contains(base, ".bad") || strings.HasSuffix(base, ".err") || strings.HasSuffix(base, ".qrels") && strings.Contains(base, ".tsv.") || strings.HasSuffix(base, ".judgments.jsonl") {
				continue
			}
			keep = append(keep, p)
		}
		return keep
	}
	const exp = "../../experiments/testdata"
	for _, p := range glob(exp + "/experiments/*") {
		rel := "testdata/experiments/" + filepath.Base(p)
		out = append(out, badCase{name: "experiments/" + filepath.Base(p), args: []string{"--experiments", rel}, err: p + ".err"})
	}
	for _, p := range glob(exp + "/golden/*") {
		rel := "testdata/golden/" + filepath.Base(p)
		env := []string{"FUSIONTUNE_DATASET_PATH=" + rel}
		for _, suffix := range []string{".qrels", ".judgments.jsonl"} {
			if _, err := os.Stat(p + suffix); err == nil {
				env = append(env, "FUSIONTUNE_DATASET_JUDGMENTS="+rel+suffix)
			}
		}
		out = append(out, badCase{name: "golden/" + filepath.Base(p), env: env, err: p + ".err"})
	}
	demo, err := filepath.Abs("../../experiments/demo/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range glob("testdata/bad/settings/*") {
		// A settings file without a dataset uses the demo's files in place,
		// so that nothing (not even the demo's cache copy) is written.
		var env []string
		if data, _ := os.ReadFile(p); !strings.Contains(string(data), "dataset") {
			env = []string{"FUSIONTUNE_DATASET_PATH=" + demo, "FUSIONTUNE_DATASET_CORPUS=" + corpus}
		}
		out = append(out, badCase{name: "settings/" + filepath.Base(p), args: []string{"--config", "bad/settings/" + filepath.Base(p)}, env: env, err: p + ".err", own: true})
	}
	for _, p := range glob("testdata/bad/qrels/*") {
		out = append(out, badCase{name: "qrels/" + filepath.Base(p), args: []string{"eval", "--qrels", "bad/qrels/" + filepath.Base(p), "--run", "bad/good.run"}, err: p + ".err", own: true})
	}
	for _, p := range glob("testdata/bad/run/*") {
		out = append(out, badCase{name: "run/" + filepath.Base(p), args: []string{"eval", "--qrels", "bad/good.qrels", "--run", "bad/run/" + filepath.Base(p)}, err: p + ".err", own: true})
	}
	for _, p := range glob("testdata/bad/sweep/*") {
		// Experiment files the parser accepts but the sweep must refuse
		// before it starts, naming the file and line of the trial.
		out = append(out, badCase{name: "sweep/" + filepath.Base(p), args: []string{"--experiments", "bad/sweep/" + filepath.Base(p)}, env: []string{"FUSIONTUNE_DATASET_PATH=" + demo, "FUSIONTUNE_DATASET_CORPUS=" + corpus}, err: p + ".err", own: true})
	}
	for _, p := range glob("testdata/bad/corpus/*") {
		out = append(out, badCase{name: "corpus/" + filepath.Base(p), env: []string{"FUSIONTUNE_DATASET_PATH=" + demo, "FUSIONTUNE_DATASET_CORPUS=bad/corpus/" + filepath.Base(p)}, err: p + ".err", own: true})
	}
	return out
}

// TestBadInputRefused runs the real binary on every malformed input: exit
// 2, the expected error (file, line or field, what was expected) on
// stderr, and not one file written — no run directory, no cache, nothing in
// the working directory.
func TestBadInputRefused(t *testing.T) {
	cases := badCases(t)
	if len(cases) < 40 {
		t.Errorf("%d malformed inputs; want at least 40", len(cases))
	}
	work := t.TempDir()
	copyTree(t, "../../experiments/testdata", filepath.Join(work, "testdata"))
	copyTree(t, "testdata/bad", filepath.Join(work, "bad"))
	before := listTree(t, work)
	cache := filepath.Join(t.TempDir(), "cache")
	kinds := map[string]int{}
	for _, tc := range cases {
		kinds[strings.SplitN(tc.name, "/", 2)[0]]++
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tuneBinary(t), tc.args...)
			cmd.Dir = work
			cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache), tc.env...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			code := exitCodeOf(t, cmd.Run())
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr.String())
			}
			if tc.own && *update {
				var keep []string
				for _, line := range strings.Split(stderr.String(), "\n") {
					if !strings.HasPrefix(line, "warning: ") {
						keep = append(keep, strings.TrimPrefix(line, "tune: "))
					}
				}
				if err := os.WriteFile(tc.err, []byte(strings.Join(keep, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tc.err)
			if err != nil {
				t.Fatalf("no expected error: %v", err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				if !strings.Contains(stderr.String(), line) {
					t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
				}
			}
			if after := listTree(t, work); strings.Join(after, "\n") != strings.Join(before, "\n") {
				extra := diff(after, before)
				t.Errorf("%d files written, first %v", len(extra), extra[:min(len(extra), 3)])
				for i := len(extra) - 1; i >= 0; i-- {
					os.RemoveAll(extra[i])
				}
			}
			if _, err := os.Stat(cache); !os.IsNotExist(err) {
				t.Errorf("cache written")
				os.RemoveAll(cache)
			}
		})
	}
	t.Logf("malformed inputs per kind: %v", kinds)
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm()|0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
