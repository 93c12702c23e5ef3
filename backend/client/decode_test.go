package client

import (
	"context"
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/internal/searchwire"
)

// serveEngine starts the engine's HTTP server on the fixture corpus at
// 127.0.0.1:0 and returns its base URL; it stops when the test ends.
func serveEngine(t *testing.T) string {
	t.Helper()
	c, err := engine.LoadConfig("../engine/testdata/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.CacheDir = t.TempDir()
	e, err := engine.New(c, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.NewServer(e, engine.ServerOptions{}).Serve(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		e.Close()
	})
	return "http://" + ln.Addr().String()
}

// decodedAlike checks that decodeResponse gives what json.Unmarshal
// gives for body (the same value, or an error from both), and reports
// whether the engine-shape scanner read it (fast) rather than
// json.Unmarshal.
func decodedAlike(t *testing.T, name string, body []byte) (fast bool) {
	t.Helper()
	var want backend.SearchResponse
	wantErr := json.Unmarshal(body, &want)
	got, err := decodeResponse(body)
	if (err != nil) != (wantErr != nil) || err == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("%s: decoded %+v (error %v), json.Unmarshal %+v (error %v)", name, got, err, want, wantErr)
	}
	_, fast = searchwire.ScanResponse[backend.SearchResponse](body)
	return fast
}

// TestDecodeResponseEngineBodies: every answer of the real engine over
// loopback — hits, candidate lists (explain), fusion variants, no hits —
// decodes to what json.Unmarshal gives, through the scanner (timings are
// left to json.Unmarshal).
func TestDecodeResponseEngineBodies(t *testing.T) {
	c, err := New(serveEngine(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		fast       bool
	}{
		{"hits", `{"query":"distant galaxies telescope","k":5}`, true},
		{"explain", `{"query":"light pollution stars","k":1,"explain":true,"fusion":{"depth":50}}`, true},
		{"variants", `{"query":"mirror lens","k":10,"variants":[{"method":"rrf","k":10,"weights":{"bm25":1,"dense":0}},{"method":"rrf","k":20}]}`, true},
		{"explain and variants", `{"query":"telescope","k":3,"explain":true,"variants":[{"method":"rrf","k":5}]}`, true},
		{"no hits", `{"query":"zzzqqq","k":5}`, true},
		{"timings", `{"query":"telescope","k":3,"timings":true}`, false},
	} {
		status, body, err := c.Raw(context.Background(), []byte(tc.body))
		if err != nil || status != 200 {
			t.Fatalf("%s: status %d, error %v: %s", tc.name, status, err, body)
		}
		if fast := decodedAlike(t, tc.name, body); fast != tc.fast {
			t.Errorf("%s: read by the scanner %v, want %v (body %s)", tc.name, fast, tc.fast, body)
		}
	}
}
