package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestQueryBenchOnTheDemo runs the benchmark on the demo against a real
// tune serve with few searches: every search answers, the percentiles
// are ordered, and throughput is counted (no timing is asserted).
func TestQueryBenchOnTheDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tune and starts tune serve")
	}
	bin := filepath.Join(t.TempDir(), "tune")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/tune").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	c := config{tune: bin, corpus: "../../experiments/demo/corpus.jsonl", queries: "../../experiments/demo/golden.json", model: "hash-384",
		clientList: "1,3", requests: 60, warmup: 5, k: 10}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	rs, err := run(context.Background(), c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Clients != 1 || rs[1].Clients != 3 {
		t.Fatalf("results %+v", rs)
	}
	for _, r := range rs {
		if r.Searches != 60 || r.P50 <= 0 || r.P50 > r.P95 || r.P95 > r.P99 || r.PerSecond <= 0 {
			t.Errorf("result %+v", r)
		}
	}
}

// TestQueryBenchFlags: out-of-range settings are refused before anything
// starts.
func TestQueryBenchFlags(t *testing.T) {
	for _, c := range []config{
		{clientList: "1", requests: 1, k: 10},
		{corpus: "c", queries: "q", clientList: "0", requests: 1, k: 10},
		{corpus: "c", queries: "q", clientList: "1", requests: 0, k: 10},
		{corpus: "c", queries: "q", clientList: "1", requests: 1, k: 1001},
		{corpus: "c", queries: "q", clientList: "1", requests: 1, warmup: -1, k: 10},
	} {
		if err := c.check(); err == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
}
