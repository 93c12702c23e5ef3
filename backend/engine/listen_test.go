package engine_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// TestListenAndServe: the engine serves its config on a free port,
// writes the ready file once /healthz answers, and stops when the
// context ends; a config or address the user got wrong is an InputError
// (exit code 2).
func TestListenAndServe(t *testing.T) {
	dir := t.TempDir()
	corpus, err := filepath.Abs("testdata/tiny/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "engine.yaml")
	yaml := "corpus: {path: " + corpus + ", format: beir}\nretrievers: [bm25, dense]\ndense: {model: hash-64}\nfusion: {method: rrf, k: 60}\ncache_dir: " + filepath.Join(dir, "cache") + "\nlisten: 127.0.0.1:9\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []struct{ name, path, listen, want string }{
		{"missing config", filepath.Join(dir, "none.yaml"), "", "none.yaml"},
		{"bad listen", cfg, "nowhere", "serve: --listen: "},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.ListenAndServe(context.Background(), engine.ServeConfig{ConfigPath: tt.path, Listen: tt.listen, Log: &bytes.Buffer{}})
			var ie *inputerr.Error
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want an input error containing %q", err, tt.want)
			}
			if ie.ExitCode() != 2 {
				t.Errorf("ExitCode() = %d, want 2 (tune serve's input-error exit)", ie.ExitCode())
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	ready := filepath.Join(dir, "ready")
	var log bytes.Buffer
	done := make(chan error, 1)
	var readied atomic.Int32
	go func() {
		done <- engine.ListenAndServe(ctx, engine.ServeConfig{ConfigPath: cfg, Listen: "127.0.0.1:0", ReadyFile: ready, MaxQueryTerms: engine.DefaultMaxQueryTerms, Log: &log,
			OnReady: func() { readied.Add(1) }})
	}()
	var addr []byte
	for deadline := time.Now().Add(60 * time.Second); len(addr) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ready file after 60s")
		}
		addr, _ = os.ReadFile(ready)
	}
	if n := readied.Load(); n != 1 {
		t.Errorf("OnReady called %d times before the ready file, want 1", n)
	}
	resp, err := http.Get("http://" + strings.TrimSpace(string(addr)) + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz after the ready file: %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stopped with %v", err)
	}
	if !strings.Contains(log.String(), "tune serve: listening on http://"+strings.TrimSpace(string(addr))) {
		t.Errorf("log:\n%s", log.String())
	}
}
