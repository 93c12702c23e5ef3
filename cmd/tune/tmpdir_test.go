package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTempFilesBesideDestination is an interrupted write through the real
// binary: every temporary (the BM25 index, cached vectors and embedder,
// the engine's config, the promotion's scratch directory) is built beside
// its destination and renamed there, never in os.TempDir, so a cache on
// another filesystem than the temp dir works. A test cannot mount a second
// filesystem here; instead TMPDIR names a directory that does not exist:
// anything built there fails. The sweep builds a fresh cache and promotes
// its best trial, and no temporary is left behind.
func TestTempFilesBesideDestination(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"backend:\n  config: prod.yaml\n")
	e.env = append(e.env, "TMPDIR="+filepath.Join(e.dir, "no-such-tmp"))
	exp := e.write("small.json", smallExperiment)
	_, stderr, code := e.run("--experiments", exp, "--mode", "live")
	if code != 0 {
		t.Fatalf("sweep with an unusable TMPDIR: exit %d\n%s", code, stderr)
	}
	dirs := e.runDirs()
	if len(dirs) != 1 {
		t.Fatalf("runs: %v", dirs)
	}
	_, stderr, code = e.run("apply", filepath.Base(dirs[0]), "--force")
	if code != 0 {
		t.Fatalf("tune apply with an unusable TMPDIR: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "prod.yaml")); err != nil {
		t.Errorf("no production config after tune apply: %v", err)
	}
	cache := filepath.Join(e.dir, "cache")
	var built, left []string
	filepath.WalkDir(e.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(e.dir, p)
		if strings.HasPrefix(p, cache) && !d.IsDir() {
			built = append(built, rel)
		}
		if strings.Contains(d.Name(), ".tmp") || strings.HasPrefix(d.Name(), ".promote-") {
			left = append(left, rel)
		}
		return nil
	})
	if len(built) == 0 {
		t.Errorf("the sweep built nothing in the cache %s", cache)
	}
	if len(left) > 0 {
		t.Errorf("temporaries left behind: %v", left)
	}
}
