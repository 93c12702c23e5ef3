package process_test

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
)

// configProcess is a process backend whose service (TestConfigHelperProcess)
// copies the config it starts on to out.
func configProcess(t *testing.T, config, out string) *process.Backend {
	t.Helper()
	b, err := process.New(process.Options{
		Command:      []string{os.Args[0], "-test.run=^TestConfigHelperProcess$", "--", "{config}"},
		Env:          []string{"CONFIG_OUT=" + out},
		ConfigPath:   config,
		Render:       render.YAMLOverlay(map[string]any{}),
		Dial:         func(string) (backend.Searcher, error) { return nil, errors.New("not used") },
		StartTimeout: time.Minute,
		StopTimeout:  10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startedOn waits for the service to copy its config to out and returns it.
func startedOn(t *testing.T, out string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if data, err := os.ReadFile(out); err == nil && len(data) > 0 {
			os.Remove(out)
			return string(data)
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never copied its config")
		}
	}
}

// TestApplyWritesBesideTheStop: Apply renders at once and writes the
// config in the background; each Restart starts its service on the config
// applied last, written whole, even when the previous service is stopping
// meanwhile.
func TestApplyWritesBesideTheStop(t *testing.T) {
	dir := t.TempDir()
	config, out := filepath.Join(dir, "conf", "service.yaml"), filepath.Join(dir, "seen")
	b := configProcess(t, config, out)
	defer b.Close()
	ctx := context.Background()
	for _, v := range []string{"first", "second", strings.Repeat("long ", 20000)} {
		if err := b.Apply(ctx, map[string]any{"v": v}); err != nil {
			t.Fatal(err)
		}
		if err := b.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := startedOn(t, out), "v: "; !strings.HasPrefix(got, want) || !strings.Contains(got, strings.TrimSpace(v)) {
			t.Errorf("the service started on %.60q, want the config of %.20q", got, v)
		}
	}
	if err := b.Apply(ctx, map[string]any{"v": "last"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(config)
	if err != nil || string(data) != "v: last\n" {
		t.Errorf("after Close, the config file holds %q (%v), want the last applied whole", data, err)
	}
}

// TestApplyWriteFailure: a config that cannot be written fails the
// Restart that needs it, naming apply, and no service starts on an old
// file; a failed write no Restart waited for fails the next Apply.
func TestApplyWriteFailure(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := configProcess(t, filepath.Join(blocker, "service.yaml"), filepath.Join(dir, "seen"))
	defer b.Close()
	ctx := context.Background()
	if err := b.Apply(ctx, map[string]any{"v": 1}); err != nil {
		t.Fatalf("Apply: %v (the write's failure belongs to Restart)", err)
	}
	if err := b.Restart(ctx); err == nil || !strings.Contains(err.Error(), "apply:") {
		t.Fatalf("Restart on an unwritable config: %v, want an apply error", err)
	}
	if pid := b.Pid(); pid != 0 {
		t.Errorf("a service started (pid %d) on a config never written", pid)
	}
	if err := b.Apply(ctx, map[string]any{"v": 2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Apply(ctx, map[string]any{"v": 3}); err == nil || !strings.Contains(err.Error(), "apply:") {
		t.Errorf("Apply after a failed write nothing waited for: %v, want that failure", err)
	}
	if err := b.Apply(ctx, map[string]any{"v": 4}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err == nil || !strings.Contains(err.Error(), "apply:") {
		t.Errorf("Close with a failed write pending: %v, want that failure", err)
	}
}

// TestConfigHelperProcess is not a test: started by configProcess, it
// copies the file named after "--" to $CONFIG_OUT and waits for SIGTERM.
func TestConfigHelperProcess(t *testing.T) {
	out := os.Getenv("CONFIG_OUT")
	if out == "" {
		t.Skip("helper process only")
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	data, err := os.ReadFile(os.Args[len(os.Args)-1])
	if err != nil {
		os.Exit(3)
	}
	tmp := out + ".tmp"
	if os.WriteFile(tmp, data, 0o644) != nil || os.Rename(tmp, out) != nil {
		os.Exit(4)
	}
	<-term
	os.Exit(0)
}
