package engine

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeDrain: stopping the server waits for a request in flight and
// answers it, but does not wait for a connection that never sent a request
// (an HTTP client's spare dial). net/http's Shutdown alone waits up to 5 s
// for such a connection, which made a restart of tune serve take 5 s now
// and then.
func TestServeDrain(t *testing.T) {
	s, url, stop := startServer(t, ServerOptions{MaxInFlight: 1, MaxQueued: 1})
	spare, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer spare.Close()

	s.sem <- struct{}{} // hold the only slot: the next search waits in flight
	answered := searchAsync(url)
	deadline := time.Now().Add(10 * time.Second)
	for s.queued.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the search never reached the server")
		}
		time.Sleep(5 * time.Millisecond)
	}

	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	case <-time.After(300 * time.Millisecond):
	}
	<-s.sem // let the search run
	if code := <-answered; code != http.StatusOK {
		t.Errorf("the in-flight search got %d, want 200", code)
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(4 * time.Second): // under net/http's 5 s grace for unused connections
		t.Fatalf("Serve still draining %s after the last request: held by a connection that never sent one", time.Since(start).Round(time.Millisecond))
	}
	spare.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := spare.Read(make([]byte, 1)); err == nil {
		t.Error("the unused connection is still open after Serve returned")
	}
}
