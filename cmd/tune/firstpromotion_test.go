package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
)

// TestFirstPromotionCreatesConfig: with backend.config naming a file (and a
// directory) that do not exist yet, --apply-best creates it and says so;
// the file names the corpus the settings wrote relative relative to its own
// directory, holds no machine-specific path, and the engine serves from it
// after a restart even when the project is moved; rollback restores "no
// file".
func TestFirstPromotionCreatesConfig(t *testing.T) {
	demo, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := newSweepEnv(t, sweepSettings+"backend:\n  config: deploy/engine.yaml\n  engine:\n    corpus:\n      path: data/corpus.jsonl\n    dense:\n      model: hash-384\n")
	if err := os.Mkdir(filepath.Join(e.dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("data/corpus.jsonl", string(demo))
	exp := e.write("exp.json", `{"baseline": {"params": {"fusion.k": 60}}, "experiments": [{"name": "k=20", "params": {"fusion.k": 20}}]}`)
	prod := filepath.Join(e.dir, "deploy", "engine.yaml")

	stdout, stderr, code := e.run("--experiments", exp, "--apply-best", "--force")
	if code != 0 {
		t.Fatalf("--apply-best: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "created production config "+prod) {
		t.Errorf("stderr does not say the config was created:\n%s", stderr)
	}
	written, err := os.ReadFile(prod)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), "path: ../data/corpus.jsonl") || strings.Contains(string(written), e.dir) || strings.Contains(string(written), "cache_dir") {
		t.Errorf("the production config holds machine-specific paths:\n%s", written)
	}

	// Move the project: the config still finds its corpus.
	moved := t.TempDir()
	if err := os.CopyFS(moved, os.DirFS(e.dir)); err != nil {
		t.Fatal(err)
	}
	addr, stop := startServe(t, filepath.Join(moved, "deploy", "engine.yaml"), t.TempDir())
	cl, err := client.New(addr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.Search(context.Background(), backend.SearchRequest{Query: "reset my password", K: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search on the promoted config: %v %+v", err, res)
	}
	stop()

	out, stderr, code := e.run("rollback")
	if code != 0 || !strings.Contains(out, "removed it") {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(prod); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rollback after the first promotion left %s: %v", prod, err)
	}
	if _, stderr, code := e.run("rollback"); code != 2 || !strings.Contains(stderr, "no promotion to roll back") {
		t.Errorf("second rollback: exit %d\n%s", code, stderr)
	}
}

// startServe runs `tune serve --config cfg` in dir and returns its address
// once it is ready, and a function that stops it.
func startServe(t *testing.T, cfg, dir string) (string, func()) {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(tuneBinary(t), "serve", "--config", cfg, "--listen", "127.0.0.1:0", "--ready-file", ready)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(120 * time.Second)
	for {
		if data, err := os.ReadFile(ready); err == nil {
			return strings.TrimSpace(string(data)), stop
		}
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("tune serve exited: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready file after 120s; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
