package process_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
)

// engineProcess is a process backend whose service is this test binary
// serving the engine's fixture (TestEngineHelperProcess), dialled with
// dial.
func engineProcess(t *testing.T, dial process.Dialer) *process.Backend {
	t.Helper()
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	b, err := process.New(process.Options{
		Command:      []string{os.Args[0], "-test.run=^TestEngineHelperProcess$"},
		Env:          []string{"ENGINE_READY=" + ready, "ENGINE_CACHE=" + filepath.Join(dir, "cache")},
		ConfigPath:   filepath.Join(dir, "config.yaml"),
		Render:       render.YAMLOverlay(map[string]any{}),
		ReadyFile:    ready,
		Dial:         dial,
		StartTimeout: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	if err := b.Apply(ctx, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSearchBatchThroughProcess checks the process backend's SearchBatch:
// through the engine's client it answers every request as Search does
// (hits without text); through a searcher without batch search it fails
// at once with backend.ErrBatchUnsupported; once the service has died,
// with backend.ErrServiceExited.
func TestSearchBatchThroughProcess(t *testing.T) {
	b := engineProcess(t, func(addr string) (backend.Searcher, error) { return client.New("http://" + addr) })
	ctx := context.Background()
	reqs := []backend.SearchRequest{{Query: "telescope mirror"}, {Query: "bread yeast", Explain: true}, {Query: "garden soil", K: 3}}
	got := make([]backend.SearchResponse, len(reqs))
	n := 0
	if err := b.SearchBatch(ctx, reqs, func(a backend.BatchAnswer) {
		if a.Err != nil {
			t.Errorf("request %d: %v", a.Index, a.Err)
		}
		got[a.Index] = a.Response
		n++
	}); err != nil {
		t.Fatal(err)
	}
	if n != len(reqs) {
		t.Fatalf("%d answers, want %d", n, len(reqs))
	}
	for i, req := range reqs {
		want, err := b.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.Hits {
			want.Hits[j].Text = ""
		}
		if len(want.Hits) == 0 || !reflect.DeepEqual(got[i], want) {
			t.Errorf("request %d: batch %+v, search %+v", i, got[i], want)
		}
	}
	if err := syscall.Kill(b.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !b.NeedsRestart() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := b.SearchBatch(ctx, reqs, func(backend.BatchAnswer) { t.Error("answered") }); !errors.Is(err, backend.ErrServiceExited) {
		t.Errorf("after the service died: %v, want ErrServiceExited", err)
	}

	plain := engineProcess(t, func(addr string) (backend.Searcher, error) {
		c, err := client.New("http://" + addr)
		return struct{ backend.Searcher }{c}, err // its Search only
	})
	if err := plain.SearchBatch(ctx, reqs, func(backend.BatchAnswer) { t.Error("answered") }); !errors.Is(err, backend.ErrBatchUnsupported) {
		t.Errorf("searcher without batch: %v, want ErrBatchUnsupported", err)
	}
}

// TestEngineHelperProcess is not a test: started by engineProcess, it
// serves the engine's fixture on a free loopback port and writes the
// address to the ready file named by $ENGINE_READY.
func TestEngineHelperProcess(t *testing.T) {
	ready := os.Getenv("ENGINE_READY")
	if ready == "" {
		t.Skip("helper process only")
	}
	cfg, err := engine.LoadConfig(filepath.Join("..", "engine", "testdata", "tiny.yaml"))
	if err != nil {
		os.Exit(3)
	}
	cfg.CacheDir = os.Getenv("ENGINE_CACHE")
	e, err := engine.New(cfg, engine.Options{})
	if err != nil {
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(3)
	}
	err = engine.NewServer(e, engine.ServerOptions{}).Serve(context.Background(), ln, func() {
		os.WriteFile(ready, []byte(ln.Addr().String()), 0o644)
	})
	if err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}
