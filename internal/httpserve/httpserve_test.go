package httpserve_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/httpserve"
)

// TestServe serves on loopback: the announced address is in the ready
// file and answers; cancelling the context ends Serve with nil; a ready
// file that cannot be written stops the server with an error.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := filepath.Join(t.TempDir(), "ready")
	announced := make(chan string, 1)
	done := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	go func() { done <- httpserve.Serve(ctx, h, ln, ready, func(addr string) { announced <- addr }) }()
	addr := <-announced
	var data []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err = os.ReadFile(ready); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if strings.TrimSpace(string(data)) != addr {
		t.Fatalf("ready file %q (%v), announced %q", data, err, addr)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Errorf("answer %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}

	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = httpserve.Serve(context.Background(), h, ln2, filepath.Join(t.TempDir(), "missing", "ready"), func(string) {})
	if err == nil || !strings.Contains(err.Error(), "ready file: ") {
		t.Errorf("unwritable ready file: %v", err)
	}
}
