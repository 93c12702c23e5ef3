package shadow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/metrics"
)

// Side is one configuration of a shadow comparison: the logged results
// (Log), or an embedded-engine config to build and search.
type Side struct {
	Name string
	Log  bool
	// Config is the engine config's YAML; File names it in errors and
	// BaseDir resolves its relative paths.
	Config        []byte
	File, BaseDir string
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
}

// Shadow answers every distinct logged query with both sides and compares
// them (Compare). The treatment may not be the log: it is what is tried.
func Shadow(ctx context.Context, c Config) (*Report, error) {
	if c.Treatment.Log {
		return nil, errors.New("shadow: the treatment must be a config or a trial: the log is what was served")
	}
	logged := FromLog(c.Log)
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
	treatment, err := c.answers(ctx, c.Treatment, logged, texts)
	if err != nil {
		return nil, err
	}
	qs := make([]Query, len(logged))
	for i, l := range logged {
		qs[i] = Query{ID: l.ID, Text: l.Text, Control: control[i], Treatment: treatment[i]}
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
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e, err := Engine(ctx, s.Config, s.File, s.BaseDir, log)
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
