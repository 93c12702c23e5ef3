package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestLoadServe is the bounded load test of tune serve (make bench-load):
// 16 concurrent clients on 127.0.0.1 send the demo golden set's queries
// until LOAD_REQUESTS requests (default 8000) or LOAD_SECONDS seconds
// (default 60) are reached, then report QPS, p50/p99 latency and errors.
// It runs only with FUSIONTUNE_LOAD=1 and asserts no timing — only that
// every request succeeded.
func TestLoadServe(t *testing.T) {
	if os.Getenv("FUSIONTUNE_LOAD") != "1" {
		t.Skip("load test: run with FUSIONTUNE_LOAD=1 (make bench-load)")
	}
	total := envInt("LOAD_REQUESTS", 8000)
	limit := time.Duration(envInt("LOAD_SECONDS", 60)) * time.Second
	clients := envInt("LOAD_CLIENTS", 16)

	corpus, _ := filepath.Abs("../../experiments/demo/corpus.jsonl")
	golden, _ := filepath.Abs("../../experiments/demo/golden.json")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "engine.yaml")
	os.WriteFile(cfg, []byte("corpus:\n  path: "+corpus+"\nretrievers: [bm25, dense]\ndense:\n  model: hash-384\ncache_dir: "+filepath.Join(dir, "cache")+"\n"), 0o644)
	ready := filepath.Join(dir, "ready")
	cmd := exec.Command(tuneBinary(t), "serve", "--config", cfg, "--listen", "127.0.0.1:0", "--ready-file", ready)
	var serr bytes.Buffer
	cmd.Stderr = &serr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	var addr string
	waitFor(t, 2*time.Minute, "tune serve to be ready", func() bool {
		data, err := os.ReadFile(ready)
		addr = strings.TrimSpace(string(data))
		return err == nil && addr != ""
	})

	var gs struct {
		Queries []struct {
			Query string `json:"query"`
		} `json:"queries"`
	}
	data, _ := os.ReadFile(golden)
	if err := json.Unmarshal(data, &gs); err != nil || len(gs.Queries) == 0 {
		t.Fatalf("golden set: %v", err)
	}
	var bodies [][]byte
	for _, q := range gs.Queries {
		b, _ := json.Marshal(map[string]any{"query": q.Query, "k": 100})
		bodies = append(bodies, b)
	}

	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      int
		firstErr  string
		next      int
	)
	deadline := time.Now().Add(limit)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= total || time.Now().After(deadline) {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				t0 := time.Now()
				resp, err := client.Post("http://"+addr+"/search", "application/json", bytes.NewReader(bodies[i%len(bodies)]))
				var status int
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				d := time.Since(t0)
				mu.Lock()
				if err != nil || status != http.StatusOK {
					errs++
					if firstErr == "" {
						firstErr = fmt.Sprintf("request %d: status %d err %v", i, status, err)
					}
				} else {
					latencies = append(latencies, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	n := len(latencies) + errs
	report := fmt.Sprintf("load: %d clients, %d requests in %s: %.0f QPS, p50 %s, p99 %s, max %s, errors %d",
		clients, n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(),
		pct(0.50).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), pct(1).Round(10*time.Microsecond), errs)
	fmt.Println(report)
	t.Log(report)
	if errs > 0 {
		t.Errorf("%d errors, first: %s", errs, firstErr)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
