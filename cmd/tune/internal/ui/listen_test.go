package ui_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
	"github.com/fusiontune/fusiontune/runs"
)

// TestListenAndServe: the app serves on a free loopback port, announces
// the bound address on stderr and in the ready file, refuses a foreign
// Host (loopback only) and stops cleanly when the context ends.
func TestListenAndServe(t *testing.T) {
	store, err := runs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan error, 1)
	o := ui.Options{Store: store, Log: slog.New(slog.DiscardHandler)}
	go func() { done <- ui.ListenAndServe(ctx, o, "127.0.0.1:0", ready, &stderr) }()
	var addr []byte
	for deadline := time.Now().Add(30 * time.Second); len(addr) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no ready file after 30s")
		}
		addr, _ = os.ReadFile(ready)
	}
	base := "http://" + strings.TrimSpace(string(addr))
	for _, tc := range []struct {
		host string
		code int
	}{{"", http.StatusOK}, {"evil.example", http.StatusForbidden}} {
		req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("Host %q: %d, want %d", tc.host, resp.StatusCode, tc.code)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stopped with %v", err)
	}
	if want := "tune ui: listening on " + base + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if err := ui.ListenAndServe(context.Background(), o, "127.0.0.1:bad", "", &stderr); err == nil || !strings.Contains(err.Error(), "ui: ") {
		t.Errorf("bad address: %v", err)
	}
}
