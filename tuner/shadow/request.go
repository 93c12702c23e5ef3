package shadow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
)

// Request is what `tune shadow` asks for, in plain values; Config reads
// and checks it into a Config.
type Request struct {
	// Logs are the query logs, comma-separated (ReadLogs); SkipBad skips
	// malformed lines.
	Logs    string
	SkipBad bool
	// Control and Treatment name the two sides (ResolveSide).
	Control, Treatment string
	// K is the depth compared; Metric the judged comparison's metric.
	K      int
	Metric string
	// Qrels or Dataset (a dataset id of the label store at LabelsURL)
	// judge the queries; at most one of them.
	Qrels, Dataset, LabelsURL string
	// SPRT is the sequential test; Seed the bootstrap's.
	SPRT stats.SPRTOptions
	Seed int64
	// OpenStore opens the runs directory a run:RUN side names.
	OpenStore func() (*runs.Store, error)
	// Getenv reads the API keys an engine config's embedders name (nil:
	// none); the command passes os.Getenv.
	Getenv func(string) string
	// Backend opens params on the settings' backend kind (Applied; nil:
	// no settings backend). The side "production" is the backend as its
	// settings configure it: an http service as it runs (nil params),
	// any other kind brought up with no parameter; when Kind is not the embedded
	// engine, a run:RUN[:TRIAL] side is the trial's recorded parameters
	// on it (on the embedded engine, its recorded engine config).
	Backend func(params map[string]any) Opener
	// Kind is the settings' backend kind (backend.kind).
	Kind string
	// Settings opens another settings file's backend as it configures it
	// (a settings:FILE side; nil refuses one).
	Settings func(file string) (Opener, error)
}

// Production is the side reference of the settings' backend as its
// settings configure it.
const Production = "production"

// side resolves a side's reference: production and settings:FILE open a
// backend (Backend, Settings), run:RUN[:TRIAL] on a backend kind other
// than the embedded engine applies the trial's recorded parameters to the
// settings' backend; the rest is ResolveSide's.
func (r Request) side(ref string) (Side, error) {
	if ref == Production {
		if r.Backend == nil {
			return Side{}, inputerr.Wrap(errors.New("shadow: production: no settings backend to search (give --config)"))
		}
		return Side{Name: Production + " (" + r.Kind + ")", Open: r.Backend(ProductionParams(r.Kind))}, nil
	}
	if file, ok := strings.CutPrefix(ref, "settings:"); ok {
		if r.Settings == nil || file == "" {
			return Side{}, inputerr.Wrap(fmt.Errorf("shadow: %q: want settings:FILE, a settings file whose backend answers", ref))
		}
		o, err := r.Settings(file)
		if err != nil {
			return Side{}, err
		}
		return Side{Name: file, Open: o}, nil
	}
	s, err := ResolveSide(ref, r.OpenStore)
	if err != nil || s.Params == nil || r.Backend == nil || r.Kind == kinds.Embedded {
		return s, err
	}
	s.Open = r.Backend(s.Params)
	s.Name += " (" + r.Kind + ")"
	return s, nil
}

// ProductionParams are the parameters Applied opens a production side
// with: none applied at all (nil) for the http kind, a service that runs
// on its own, searched as it runs; an empty set for the kinds the tuner
// brings up itself (their settings' own configuration).
func ProductionParams(kind string) map[string]any {
	if kind == kinds.HTTP {
		return nil
	}
	return map[string]any{}
}

// Check checks the request's values that need no file; its errors are
// input errors (inputerr.Error) naming the flag.
func (r Request) Check() error {
	if _, err := metrics.ParseMetric(r.Metric); err != nil {
		return inputerr.Wrap(fmt.Errorf("shadow: --metric: %w", err))
	}
	if r.Qrels != "" && r.Dataset != "" {
		return inputerr.Wrap(errors.New("shadow: give --qrels or --dataset, not both"))
	}
	if p := r.SPRT.Validate(); len(p) > 0 {
		return inputerr.Wrap(fmt.Errorf("shadow: --%s", p[0]))
	}
	return nil
}

// Config checks r and reads the log, both sides and the judgments.
func (r Request) Config(ctx context.Context) (Config, error) {
	var c Config
	if err := r.Check(); err != nil {
		return c, err
	}
	m, _ := metrics.ParseMetric(r.Metric)
	var err error
	if c.Log, err = ReadLogs(r.Logs, r.SkipBad); err != nil {
		return c, err
	}
	c.Getenv = r.Getenv
	c.Options = Options{K: r.K, Metric: m, Grades: metrics.DefaultOptions(), SPRT: r.SPRT, Seed: r.Seed}
	if c.Control, err = r.side(r.Control); err != nil {
		return c, err
	}
	if c.Treatment, err = r.side(r.Treatment); err != nil {
		return c, err
	}
	c.Judgments, err = ReadJudgments(ctx, r.Qrels, r.LabelsURL, r.Dataset)
	return c, err
}
