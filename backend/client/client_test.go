package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/client"
)

// server serves h on 127.0.0.1 until the test ends and returns its URL.
func server(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestNew(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"127.0.0.1:8099", "http://127.0.0.1:8099", false},
		{"http://h:1/", "http://h:1", false},
		{"https://h", "https://h", false},
		{"ftp://h", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := client.New(tt.in)
			if tt.err {
				if err == nil {
					t.Errorf("want an error")
				}
				return
			}
			if err != nil || c.BaseURL() != tt.want {
				t.Errorf("got %v %v, want %s", c, err, tt.want)
			}
		})
	}
}

func TestReadyPollsUntilHealthy(t *testing.T) {
	var probes atomic.Int32
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if probes.Add(1) < 3 {
			w.WriteHeader(503)
			w.Write([]byte(`{"status":"indexing"}`))
			return
		}
		w.Write([]byte(`{"status":"ready"}`))
	}))
	c, _ := client.New(url, client.WithPollInterval(5*time.Millisecond))
	if err := c.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := probes.Load(); n != 3 {
		t.Errorf("%d probes, want 3", n)
	}
}

func TestReadyTimesOutWithReason(t *testing.T) {
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(503)
		w.Write([]byte(`{"status":"indexing"}`))
	}))
	c, _ := client.New(url, client.WithPollInterval(5*time.Millisecond), client.WithReadyTimeout(50*time.Millisecond))
	err := c.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable") || !strings.Contains(err.Error(), "indexing") {
		t.Errorf("error %v, want the last probe's status and body", err)
	}
}

func TestSearchErrors(t *testing.T) {
	long := strings.Repeat("x", 1000)
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body [64]byte
		n, _ := r.Body.Read(body[:])
		switch {
		case strings.Contains(string(body[:n]), "bad"):
			w.WriteHeader(400)
			w.Write([]byte(`{"error": "query: must not be empty"}`))
		case strings.Contains(string(body[:n]), "crash"):
			w.WriteHeader(502)
			w.Write([]byte("<html>" + long + "</html>"))
		case strings.Contains(string(body[:n]), "garbage"):
			w.Write([]byte("not json"))
		default:
			w.Write([]byte(`{"hits":[{"doc_id":"d1","chunk_id":"d1#0","score":0.5}],"routing":"search"}`))
		}
	}))
	c, _ := client.New(url)
	tests := []struct {
		query, want string
	}{
		{"bad", "400 Bad Request: query: must not be empty"},
		{"crash", "502 Bad Gateway: <html>xxx"},
		{"garbage", `decode response`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, err := c.Search(context.Background(), backend.SearchRequest{Query: tt.query})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if tt.query != "garbage" && !errors.Is(err, client.ErrStatus) {
				t.Errorf("error %v does not wrap ErrStatus", err)
			}
			if len(err.Error()) > 500 {
				t.Errorf("error not shortened: %d bytes", len(err.Error()))
			}
		})
	}
	resp, err := c.Search(context.Background(), backend.SearchRequest{Query: "ok"})
	if err != nil || len(resp.Hits) != 1 || resp.Hits[0] != (backend.Hit{DocID: "d1", ChunkID: "d1#0", Score: 0.5}) || resp.Routing != "search" {
		t.Errorf("got %+v %v", resp, err)
	}
}

func TestSearchTimeout(t *testing.T) {
	release := make(chan struct{})
	url := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	c, _ := client.New(url, client.WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}))
	_, err := c.Search(context.Background(), backend.SearchRequest{Query: "slow"})
	if err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Errorf("error %v, want a timeout", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c, _ := client.New(addr)
	if err := c.Health(context.Background()); err == nil || !strings.Contains(err.Error(), "connect") {
		t.Errorf("error %v, want a connection error", err)
	}
}
