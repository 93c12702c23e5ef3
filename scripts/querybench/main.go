// Command querybench measures the embedded engine's hybrid search latency
// and throughput over loopback HTTP, as a user's service would see it: it
// starts `tune serve` (bm25 + a dense model) on a BEIR folder or a corpus
// and a golden set, waits until it is ready and warm (the index cache is
// built untimed first), then, for each client count, sends -requests
// searches cycling through the dataset's queries and reports p50, p95 and
// p99 latency (client-side, request sent to response read), searches per
// second and the server's CPU time per search.
//
//	go run ./scripts/querybench -tune bin/tune -data ../shared/data/scifact -clients 1,4
//
// Nothing here passes or fails on a timing: exit 1 only when the server
// fails or a search is refused (make bench-query).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/scripts/tuneserve"
)

func main() {
	var c config
	flag.StringVar(&c.tune, "tune", "bin/tune", "tune binary")
	flag.StringVar(&c.data, "data", "", "a BEIR folder (corpus.jsonl, queries.jsonl), or empty for -corpus and -queries")
	flag.StringVar(&c.corpus, "corpus", "", "corpus JSON lines (without -data)")
	flag.StringVar(&c.queries, "queries", "", "queries: a native golden set (JSON) or BEIR queries.jsonl (without -data)")
	flag.StringVar(&c.model, "model", "lsa-256", "dense model of the engine")
	flag.StringVar(&c.clientList, "clients", "1,4", "client counts to measure, comma-separated, each in [1, 64]")
	flag.IntVar(&c.requests, "requests", 3000, "searches per client count, in [1, 1000000]")
	flag.IntVar(&c.warmup, "warmup", 300, "unrecorded searches before each measurement, in [0, 100000]")
	flag.IntVar(&c.k, "k", 10, "results per search, in [1, 1000]")
	flag.Parse()
	if err := c.check(); err != nil {
		fmt.Fprintln(os.Stderr, "querybench:", err)
		os.Exit(2)
	}
	rs, err := run(context.Background(), c, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "querybench:", err)
		os.Exit(1)
	}
	for _, r := range rs {
		fmt.Println(r)
	}
}

type config struct {
	tune, data, corpus, queries, model, clientList string
	requests, warmup, k                            int
	clients                                        []int
}

func (c *config) check() error {
	if c.data != "" {
		c.corpus, c.queries = filepath.Join(c.data, "corpus.jsonl"), filepath.Join(c.data, "queries.jsonl")
	}
	if c.corpus == "" || c.queries == "" {
		return fmt.Errorf("give -data, or -corpus and -queries")
	}
	c.clients = nil
	for _, f := range strings.Split(c.clientList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 64 {
			return fmt.Errorf("-clients: want integers in [1, 64] (got %q)", f)
		}
		c.clients = append(c.clients, n)
	}
	switch {
	case c.requests < 1 || c.requests > 1_000_000:
		return fmt.Errorf("-requests: want an integer in [1, 1000000] (got %d)", c.requests)
	case c.warmup < 0 || c.warmup > 100_000:
		return fmt.Errorf("-warmup: want an integer in [0, 100000] (got %d)", c.warmup)
	case c.k < 1 || c.k > 1000:
		return fmt.Errorf("-k: want an integer in [1, 1000] (got %d)", c.k)
	}
	return nil
}

// Result is one client count's measurement.
type Result struct {
	Clients, Searches  int
	P50, P95, P99      time.Duration
	PerSecond          float64
	ServerCPUPerSearch time.Duration // 0 when /proc is not readable
}

func (r Result) String() string {
	cpu := "n/a"
	if r.ServerCPUPerSearch > 0 {
		cpu = fmt.Sprintf("%.3f ms", ms(r.ServerCPUPerSearch))
	}
	return fmt.Sprintf("clients %d: %d searches, p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, %.0f searches/s, server CPU %s a search",
		r.Clients, r.Searches, ms(r.P50), ms(r.P95), ms(r.P99), r.PerSecond, cpu)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func run(ctx context.Context, c config, progress io.Writer) ([]Result, error) {
	texts, err := readQueries(c.queries)
	if err != nil {
		return nil, err
	}
	tune, err := filepath.Abs(c.tune)
	if err != nil {
		return nil, err
	}
	corpus, err := filepath.Abs(c.corpus)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "querybench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := fmt.Sprintf("corpus: {path: %q}\nretrievers: [bm25, dense]\ndense: {model: %s}\nfusion: {method: rrf, k: 60}\ncache_dir: %q\n", corpus, c.model, filepath.Join(dir, "cache"))
	if err := os.WriteFile(filepath.Join(dir, "engine.yaml"), []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "querybench: %d queries; building the index (untimed)\n", len(texts))
	srv, err := tuneserve.Start(ctx, tune, dir, "engine.yaml", 10*time.Minute)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	var out []Result
	for _, n := range c.clients {
		if _, err := load(ctx, srv.Addr, texts, c.warmup, n, c.k); err != nil {
			return nil, err
		}
		cpu0 := srv.CPU()
		fmt.Fprintf(progress, "querybench: %d searches from %d clients\n", c.requests, n)
		r, err := load(ctx, srv.Addr, texts, c.requests, n, c.k)
		if err != nil {
			return nil, err
		}
		if cpu0 > 0 {
			r.ServerCPUPerSearch = (srv.CPU() - cpu0) / time.Duration(c.requests)
		}
		out = append(out, r)
	}
	return out, nil
}

// readQueries reads query texts: a native golden set's "query" fields, or
// BEIR queries.jsonl's "text".
func readQueries(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var texts []string
	var gs struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	if json.Unmarshal(data, &gs) == nil && len(gs.Queries) > 0 {
		for _, q := range gs.Queries {
			texts = append(texts, q.Query)
		}
		return texts, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil || q.Text == "" {
			return nil, fmt.Errorf("%s:%d: want a JSON object with a text", path, line)
		}
		texts = append(texts, q.Text)
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return texts, sc.Err()
}

// load sends n searches from clients goroutines, query i%len(texts) for
// the i-th, and measures them.
func load(ctx context.Context, addr string, texts []string, n, clients, k int) (Result, error) {
	r := Result{Clients: clients, Searches: n}
	if n == 0 {
		return r, nil
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: time.Minute}
	lat := make([]time.Duration, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	begin := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body, _ := json.Marshal(map[string]any{"query": texts[i%len(texts)], "k": k})
				t0 := time.Now()
				err := search(ctx, hc, addr, body)
				lat[i] = time.Since(t0)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	wall := time.Since(begin)
	if firstErr != nil {
		return r, firstErr
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	pct := func(p float64) time.Duration { return lat[min(n-1, int(p*float64(n)))] }
	r.P50, r.P95, r.P99 = pct(0.50), pct(0.95), pct(0.99)
	r.PerSecond = float64(n) / wall.Seconds()
	return r, nil
}

func search(ctx context.Context, hc *http.Client, addr string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, addr+"/search", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("search: %s: %s", resp.Status, bytes.TrimSpace(data))
	}
	return nil
}
