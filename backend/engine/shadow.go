package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/querylog"
)

// ShadowConfig is the `shadow` block of an engine config: `tune serve`
// answers every search with its own config and then, for a sample of
// them, searches the shadow config too (never delaying the answer) and
// logs the shadow answer with its diff against the served one.
//
//	shadow:
//	  config: candidate.yaml  # an engine config, relative to this file
//	  percent: 10             # (0, 100]: the share of searches shadowed
type ShadowConfig struct {
	Config  string  `yaml:"config" json:"config"`
	Percent float64 `yaml:"percent" json:"percent"`
}

// ShadowTimeout bounds one shadow search.
const ShadowTimeout = 10 * time.Second

func (c *ShadowConfig) problems(logged bool) []*FieldError {
	if c == nil {
		return nil
	}
	var out []*FieldError
	if c.Config == "" {
		out = append(out, &FieldError{Field: "shadow.config", Problem: "required (the engine config to shadow)"})
	}
	if !(c.Percent > 0 && c.Percent <= 100) {
		out = append(out, &FieldError{Field: "shadow.percent", Problem: fmt.Sprintf("must be a number in (0, 100] (got %v)", c.Percent)})
	}
	if !logged {
		out = append(out, &FieldError{Field: "shadow", Problem: "needs log.path: the shadow answers are written to the query log"})
	}
	return out
}

// Shadow is a running shadow engine for a Server (ServerOptions.Shadow).
type Shadow struct {
	Engine  *Engine
	Percent float64
	// Diff compares the served list with the shadow's, both cut at depth
	// k, for the shadow event's diff (the command layer passes
	// metrics/stats' comparison: the engine computes no statistics); nil
	// shadows no search.
	Diff func(served, shadow []string, k int) querylog.Diff
	hash string
	busy atomic.Bool
	// Skipped counts sampled searches not shadowed because the previous
	// shadow search was still running: the shadow never queues work.
	Skipped atomic.Int64
}

// LoadShadow reads and checks the shadow config c.Shadow names (nil, nil
// when none): an engine config of its own, which may not log or shadow in
// turn. The caller builds and closes the engine.
func LoadShadow(c Config, o Options) (*Shadow, error) {
	if c.Shadow == nil {
		return nil, nil
	}
	sc, err := LoadConfig(c.Shadow.Config)
	if err != nil {
		return nil, fmt.Errorf("shadow.config: %w", err)
	}
	if sc.Log != nil || sc.Shadow != nil {
		return nil, fmt.Errorf("shadow.config %s: a shadow config may not set log or shadow itself", c.Shadow.Config)
	}
	e, err := New(sc, o)
	if err != nil {
		return nil, fmt.Errorf("shadow.config %s: %w", c.Shadow.Config, err)
	}
	return &Shadow{Engine: e, Percent: c.Shadow.Percent, hash: ConfigHash(sc)}, nil
}

// maybeShadow starts the shadow search of an answered request when it is
// in the sample, the shadow engine is ready and no other shadow search
// runs; it never waits.
func (s *Server) maybeShadow(id string, req backend.SearchRequest, served []string) {
	sh := s.opts.Shadow
	if sh == nil || sh.Diff == nil || !querylog.Sampled(id+"#shadow", sh.Percent/100) {
		return
	}
	if sh.Engine.Ready(context.Background()) != nil {
		return
	}
	if !sh.busy.CompareAndSwap(false, true) {
		sh.Skipped.Add(1)
		return
	}
	go func() {
		defer sh.busy.Store(false)
		s.shadowSearch(id, req, served)
	}()
}

// shadowSearch searches the shadow engine and logs its answer with the
// diff over the served list's length.
func (s *Server) shadowSearch(id string, req backend.SearchRequest, served []string) {
	sh := s.opts.Shadow
	ctx, cancel := context.WithTimeout(context.Background(), ShadowTimeout)
	defer cancel()
	req.Explain = false
	start := time.Now()
	resp, err := sh.Engine.Search(ctx, req)
	if err != nil {
		s.opts.Logger.Warn("shadow search failed", "request_id", id, "err", err)
		return
	}
	e := &querylog.Event{Type: querylog.TypeShadow, Time: time.Now().UTC(), RequestID: id,
		LatencyMS: float64(time.Since(start).Microseconds()) / 1000, Config: sh.hash}
	var ids []string
	seen := map[string]bool{}
	for _, h := range resp.Hits {
		if !seen[h.DocID] {
			seen[h.DocID] = true
			ids = append(ids, h.DocID)
			e.Results = append(e.Results, querylog.Result{ID: h.DocID, Score: h.Score})
		}
	}
	k := len(served)
	top := ids[:min(k, len(ids))]
	d := sh.Diff(served, top, max(k, 1))
	e.Diff = &d
	if err := s.opts.QueryLog.Write(e); err != nil {
		s.opts.Logger.Error("query log", "err", err)
	}
}
