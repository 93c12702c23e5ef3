package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// benchPairs are 80 queries of 5 documents each (80 calls at batch 5).
func benchPairs() []judge.Pair {
	var ps []judge.Pair
	for q := range 80 {
		for d := range 5 {
			ps = append(ps, judge.Pair{Query: fmt.Sprintf("q%d", q), QueryText: fmt.Sprintf("boiler pressure topic %d", q),
				Doc: fmt.Sprintf("d%d-%d", q, d), DocTitle: "Boiler pressure",
				DocText: fmt.Sprintf("Document %d of query %d: check the boiler pressure gauge and top up with the filling loop if it fell below one bar. ", d, q)})
		}
	}
	return ps
}

// BenchmarkJudge measures labels per second through the LLM client, at
// concurrency 8 against the local rule-answering server: cold (every pair
// a call; the server answering at once, or after 50ms as a remote model
// might) and warm (every pair answered by the cache in a SQLite store).
//
//	go test ./judge/llm -run '^$' -bench BenchmarkJudge -benchtime 5x
func BenchmarkJudge(b *testing.B) {
	pairs := benchPairs()
	newStore := func(b *testing.B) *labels.Store {
		s, err := labels.Open(context.Background(), filepath.Join(b.TempDir(), "labels.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	newJudge := func(b *testing.B, srv *llmtest.Server, store *labels.Store) *llm.Judge {
		p, _ := llm.Builtin(llm.PromptGraded)
		j, err := llm.New(llm.Config{Dataset: "bench", URL: srv.URL, Model: "rule-1", Prompt: p, Batch: 5, Concurrency: 8,
			Timeout: 10 * time.Second, Retries: 0, MaxDocChars: 3000, Seed: 1, Store: store})
		if err != nil {
			b.Fatal(err)
		}
		return j
	}
	run := func(b *testing.B, j *llm.Judge) {
		ls, err := j.Judge(context.Background(), pairs)
		if err != nil || len(ls) != len(pairs) {
			b.Fatalf("%d labels, %v", len(ls), err)
		}
	}
	for _, latency := range []time.Duration{0, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("cold/latency=%s", latency), func(b *testing.B) {
			srv := llmtest.Start(b)
			if latency > 0 {
				srv.Fault = func(int64, http.ResponseWriter, *http.Request) bool { time.Sleep(latency); return false }
			}
			for range b.N {
				b.StopTimer()
				store := newStore(b) // a fresh cache: every pair is a call
				j := newJudge(b, srv, store)
				b.StartTimer()
				run(b, j)
			}
			b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "labels/s")
		})
	}
	b.Run("warm", func(b *testing.B) {
		srv := llmtest.Start(b)
		store := newStore(b)
		run(b, newJudge(b, srv, store)) // fill the cache
		calls := srv.Requests()
		b.ResetTimer()
		for range b.N {
			run(b, newJudge(b, srv, store))
		}
		b.ReportMetric(float64(len(pairs)*b.N)/b.Elapsed().Seconds(), "labels/s")
		if srv.Requests() != calls {
			b.Fatalf("warm runs made %d calls", srv.Requests()-calls)
		}
	})
}
