package httpbackend_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/render"
)

// serviceEnv makes the test binary run as a tiny search service instead of
// the tests: HTTPBACKEND_SERVICE=config-path,listen-address.
const serviceEnv = "HTTPBACKEND_SERVICE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(serviceEnv); spec != "" {
		os.Exit(service(spec))
	}
	os.Exit(m.Run())
}

// service reads its JSON config once at start ({"docs": [...]}) and
// answers /healthz and /search with those documents, best first.
func service(spec string) int {
	configPath, addr, _ := strings.Cut(spec, ",")
	data, err := os.ReadFile(configPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var cfg struct {
		Docs []string `json:"docs"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		var hits []map[string]any
		for i, d := range cfg.Docs {
			hits = append(hits, map[string]any{"id": d, "score": float64(len(cfg.Docs) - i)})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": hits, "pid": os.Getpid()})
	})
	srv := &http.Server{Addr: addr, Handler: mux}
	go func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		<-c
		srv.Close()
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestApplyRestartClose drives a real service process through the
// committed restart script: each Apply+Restart really changes what it
// serves, and Close puts the original config bytes back and restarts it on
// them.
func TestApplyRestartClose(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	config := filepath.Join(dir, "service.json")
	original := []byte("{\"docs\": [\"original-1\", \"original-2\"]}\n")
	if err := os.WriteFile(config, original, 0o600); err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(dir, "service.pid")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../scripts/restart-service.sh")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := render.Parse("service.json.tmpl", `{"docs": [{{ .custom.first }}, "fixed"]}`, render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{
		URL: "http://" + addr + "/search?q={{ .query }}", Method: http.MethodGet, HealthURL: "http://" + addr + "/healthz",
		Response: httpbackend.Response{Hits: "results", ID: "id", Score: "score"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	b, err := httpbackend.New(httpbackend.Options{
		ConfigPath: config, Render: tm.Execute, BackupPath: filepath.Join(dir, "backup", "service.json"),
		Restart: []string{script, pidfile, filepath.Join(dir, "service.log"), exe, "-test.run=^$"},
		Env:     []string{serviceEnv + "={config}," + addr}, Search: s, Log: &log, ReadyTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killPidfile(pidfile) })
	ctx := context.Background()
	top := func() string {
		t.Helper()
		resp, err := b.Search(ctx, backend.SearchRequest{Query: "q"})
		if err != nil {
			t.Fatalf("Search: %v", err)
		}
		return resp.Hits[0].DocID
	}
	for _, first := range []string{"trial-a", "trial-b\"], \"docs2\": [\"x"} {
		if err := b.Apply(ctx, map[string]any{"custom.first": first}); err != nil {
			t.Fatal(err)
		}
		if !b.NeedsRestart() {
			t.Error("NeedsRestart false after a new config")
		}
		if err := b.Restart(ctx); err != nil {
			t.Fatalf("Restart: %v\n%s", err, log.String())
		}
		if err := b.Ready(ctx); err != nil {
			t.Fatalf("Ready: %v", err)
		}
		if got := top(); got != first {
			t.Errorf("after restart on %q the service serves %q first", first, got)
		}
		if b.NeedsRestart() {
			t.Error("NeedsRestart true for the config the service runs")
		}
	}
	if backup, _ := os.ReadFile(filepath.Join(dir, "backup", "service.json")); !bytes.Equal(backup, original) {
		t.Errorf("backup holds %q", backup)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got, _ := os.ReadFile(config)
	if !bytes.Equal(got, original) {
		t.Errorf("config after Close:\n%s\nwant\n%s", got, original)
	}
	if st, _ := os.Stat(config); st.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v after Close, want 0600", st.Mode().Perm())
	}
	if got := top(); got != "original-1" {
		t.Errorf("after Close the service serves %q first, want original-1", got)
	}
	if b.Restarts() != 3 {
		t.Errorf("%d restarts, want 3 (two trials and the restore)", b.Restarts())
	}
	if err := b.Close(); err != nil || b.Restarts() != 3 {
		t.Errorf("second Close: %v, %d restarts", err, b.Restarts())
	}
}

func killPidfile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestRestartFailureNamesTheCommand(t *testing.T) {
	s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{URL: "http://127.0.0.1:1/s", HealthURL: "http://127.0.0.1:1/h", Response: httpbackend.Response{Hits: "h", ID: "id"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := httpbackend.New(httpbackend.Options{ConfigPath: filepath.Join(t.TempDir(), "c.json"), Restart: []string{"sh", "-c", "echo boom >&2; exit 3"}, Search: s})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Restart(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Restart: %v", err)
	}
}
