package shadow

import (
	"context"
	"errors"
	"fmt"

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
	if c.Control, err = ResolveSide(r.Control, r.OpenStore); err != nil {
		return c, err
	}
	if c.Treatment, err = ResolveSide(r.Treatment, r.OpenStore); err != nil {
		return c, err
	}
	c.Judgments, err = ReadJudgments(ctx, r.Qrels, r.LabelsURL, r.Dataset)
	return c, err
}
