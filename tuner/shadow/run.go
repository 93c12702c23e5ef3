package shadow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
)

// Side is one configuration of a shadow comparison: the logged results
// (Log), the live shadow mode's logged answers (Shadow), a backend of any
// kind to open and search (Open), or an embedded-engine config to build
// and search.
type Side struct {
	Name   string
	Log    bool
	Shadow bool
	// Open, when set, brings up the side's backend (Applied); its answers
	// are the backend's own Search results.
	Open Opener
	// Config is the engine config's YAML; File names it in errors and
	// BaseDir resolves its relative paths.
	Config        []byte
	File, BaseDir string
	// Params are a recorded trial's parameters (a run:RUN[:TRIAL] side).
	Params map[string]any
}

// Config is one shadow comparison.
type Config struct {
	Log                *querylog.Log
	Control, Treatment Side
	// Judgments grade documents per harvested query id (harvest.QueryID);
	// queries without any are diffed but not scored.
	Judgments map[string]map[string]int
	Options   Options
	Logger    *slog.Logger
	// Getenv reads the API keys a config side's embedders name (nil:
	// none).
	Getenv func(string) string
}

// Shadow answers every distinct logged query with both sides and compares
// them (Compare). The treatment may not be the log: it is what is tried.
func Shadow(ctx context.Context, c Config) (*Report, error) {
	if c.Treatment.Log {
		return nil, errors.New("shadow: the treatment must be a config or a trial: the log is what was served")
	}
	if c.Control.Shadow {
		return nil, errors.New("shadow: the logged shadow answers are a treatment; the control is what was served (log) or a config")
	}
	logged := FromLog(c.Log)
	var shadows map[string]querylog.Event
	if c.Treatment.Shadow {
		logged, shadows = withShadow(c.Log, logged)
		if len(logged) == 0 {
			return nil, errors.New("shadow: the log holds no shadow answer (tune serve's shadow: {config, percent} writes them)")
		}
	}
	if len(logged) == 0 {
		return nil, errors.New("shadow: the log holds no search")
	}
	texts := make([]string, len(logged))
	for i, l := range logged {
		texts[i] = l.Latest.Query
	}
	control, err := c.answers(ctx, c.Control, logged, texts)
	if err != nil {
		return nil, err
	}
	var treatment []List
	if c.Treatment.Shadow {
		for _, l := range logged {
			treatment = append(treatment, LoggedList(shadows[l.Latest.RequestID]))
		}
	} else if treatment, err = c.answers(ctx, c.Treatment, logged, texts); err != nil {
		return nil, err
	}
	qs := make([]Query, len(logged))
	for i, l := range logged {
		qs[i] = Query{ID: l.ID, Text: l.Text, Control: control[i], Treatment: treatment[i]}
		if c.Control.Log {
			qs[i].Depth = shownDepth(l.Latest)
		}
		if j := c.Judgments[l.ID]; len(j) > 0 {
			qs[i].Judgments = metrics.Judgments(j)
		}
	}
	o := c.Options
	o.Control, o.Treat = c.Control.Name, c.Treatment.Name
	return Compare(qs, o)
}

func (c Config) answers(ctx context.Context, s Side, logged []Logged, texts []string) ([]List, error) {
	if s.Log {
		out := make([]List, len(logged))
		for i, l := range logged {
			out[i] = LoggedList(l.Latest)
		}
		return out, nil
	}
	if s.Open != nil {
		var lists []List
		err := s.Open(ctx, func(ctx context.Context, sr backend.Searcher) error {
			var err error
			lists, err = Run(ctx, sr, texts, c.Options.K)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("shadow: %s: %w", s.Name, err)
		}
		return lists, nil
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e, err := Engine(ctx, s.Config, s.File, s.BaseDir, log, c.Getenv)
	if err != nil {
		return nil, fmt.Errorf("shadow: %s: %w", s.Name, err)
	}
	defer e.Close()
	lists, err := Run(ctx, e, texts, c.Options.K)
	if err != nil {
		return nil, fmt.Errorf("shadow: %s: %w", s.Name, err)
	}
	return lists, nil
}

// withShadow keeps the logged queries with a shadow answer, each paired
// with the latest search that has one (so the control, what was served,
// and the treatment answer the same request), and returns the shadow
// events by request id.
func withShadow(log *querylog.Log, logged []Logged) ([]Logged, map[string]querylog.Event) {
	shadows := make(map[string]querylog.Event, len(log.Shadows))
	for _, e := range log.Shadows {
		shadows[e.RequestID] = e
	}
	latest := map[string]querylog.Event{} // normalised text -> latest shadowed search
	for _, s := range log.Searches {
		if _, ok := shadows[s.RequestID]; ok {
			latest[harvest.Normalize(s.Query)] = s
		}
	}
	var out []Logged
	for _, l := range logged {
		if s, ok := latest[l.Norm]; ok {
			l.Latest = s
			out = append(out, l)
		}
	}
	return out, shadows
}

// shownDepth is how deep a logged search's answer went: the k it asked
// for, else the results it logged.
func shownDepth(e querylog.Event) int {
	if e.K > 0 {
		return e.K
	}
	return max(len(e.Results), 1)
}
