package shadow

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
)

// Logged is one distinct logged query: its harvested identity and the
// results its latest logged search returned.
type Logged struct {
	harvest.Query
	Latest querylog.Event
}

// FromLog returns the log's distinct queries (grouped as harvest.Group
// does) in the order they were first searched: the order a sequential
// test sees them arrive. Each carries the latest search's results.
func FromLog(log *querylog.Log) []Logged {
	qs, _ := harvest.Group(log.Searches)
	byNorm := make(map[string]*harvest.Query, len(qs))
	for i := range qs {
		byNorm[qs[i].Norm] = &qs[i]
	}
	var out []Logged
	at := map[string]int{}
	for _, s := range log.Searches {
		norm := harvest.Normalize(s.Query)
		if norm == "" {
			continue
		}
		if i, ok := at[norm]; ok {
			out[i].Latest = s
			continue
		}
		at[norm] = len(out)
		out = append(out, Logged{Query: *byNorm[norm], Latest: s})
	}
	return out
}

// LoggedList is a logged search's answer as a List.
func LoggedList(e querylog.Event) List {
	l := List{LatencyMS: e.LatencyMS}
	if e.LatencyMS == 0 {
		l.LatencyMS = -1 // not logged
	}
	for _, r := range e.Results {
		l.IDs = append(l.IDs, r.ID)
	}
	return l
}

// WarmUp is how many queries Run searches once, untimed, before timing:
// the first searches of a freshly built engine pay for cold caches.
const WarmUp = 20

// Run searches every text on s, one after another (so the latencies are
// of one client on an otherwise idle engine), at depth k, timing each
// after a warm-up over the first WarmUp texts.
func Run(ctx context.Context, s backend.Searcher, texts []string, k int) ([]List, error) {
	for _, text := range texts[:min(WarmUp, len(texts))] {
		if _, err := s.Search(ctx, backend.SearchRequest{Query: text, K: k}); err != nil {
			return nil, fmt.Errorf("query %q: %w", text, err)
		}
	}
	out := make([]List, len(texts))
	for i, text := range texts {
		start := time.Now()
		resp, err := s.Search(ctx, backend.SearchRequest{Query: text, K: k})
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", text, err)
		}
		out[i].LatencyMS = float64(time.Since(start).Microseconds()) / 1000
		seen := map[string]bool{}
		for _, h := range resp.Hits {
			if !seen[h.DocID] { // passage mode may rank a document twice
				seen[h.DocID] = true
				out[i].IDs = append(out[i].IDs, h.DocID)
			}
		}
	}
	return out, nil
}

// Engine builds the embedded engine of an engine config (YAML, with
// relative paths resolved against baseDir), its embedders' API keys read
// with getenv (nil: none); the caller closes it.
func Engine(ctx context.Context, config []byte, file, baseDir string, log *slog.Logger, getenv func(string) string) (*engine.Engine, error) {
	cfg, err := engine.ParseConfig(config, file, baseDir)
	if err != nil {
		return nil, err
	}
	e, err := engine.New(cfg, engine.Options{Logger: log, Getenv: getenv})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := e.Build(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return e, nil
}
