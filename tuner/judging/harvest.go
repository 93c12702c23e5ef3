package judging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
)

// HarvestRequest is `tune harvest`: the harvest itself, the label store
// the implicit labels go to and the pool's judgments come from, and the
// judging pool of the added queries.
type HarvestRequest struct {
	harvest.Config
	// StoreURL is the label store; Dataset the dataset id of the implicit
	// labels and the pool ("": the golden set's file name, DatasetIDOf).
	StoreURL, Dataset string
	// Judge pools the added queries' logged answers, PoolDepth ranks of
	// each, into Pool ("": Out's name with .pool.jsonl), a new file.
	Judge     bool
	Pool      string
	PoolDepth int
}

// check checks the request before anything is read or written and
// returns the pool file ("" without Judge). Errors are input errors (inputerr.Error).
func (r HarvestRequest) check() (string, error) {
	if err := r.Config.Check(); err != nil {
		return "", inputerr.Wrap(err)
	}
	if !r.Judge {
		if r.Pool != "" {
			return "", inputerr.Wrap(errors.New("harvest: --pool needs --judge"))
		}
		return "", nil
	}
	f := r.Pool
	if f == "" {
		f = strings.TrimSuffix(r.Out, ".json") + ".pool.jsonl"
	}
	if _, err := os.Stat(f); err == nil {
		return "", inputerr.Wrap(fmt.Errorf("harvest: pool file %s exists: give --pool a new file (a pool is not overwritten)", f))
	}
	return f, nil
}

// Harvest runs the request: it checks everything first, samples the logs
// into the golden set Out (harvest.Run), appends the implicit labels to
// the store (Implicit) and writes the added queries' judging pool
// (Judge), saying what it did on stdout; skipped log lines go to stderr.
// The user's errors are input errors (inputerr.Error).
func Harvest(ctx context.Context, r HarvestRequest, stdout, stderr io.Writer) error {
	poolFile, err := r.check()
	if err != nil {
		return err
	}
	res, err := harvest.Run(r.Config)
	if err != nil {
		return inputerr.Wrap(err)
	}
	for _, b := range res.Log.Bad {
		fmt.Fprintln(stderr, "skipped:", b)
	}
	if res.Cleaned > 0 {
		fmt.Fprintf(stderr, "warning: %d searches held control characters (NUL, line feeds, tabs) in their text: each replaced by a space in %s\n", res.Cleaned, r.Out)
	}
	if err := atomicfile.Write(r.Out, res.Golden, 0o644); err != nil {
		return fmt.Errorf("harvest: %w", err)
	}
	fmt.Fprint(stdout, res.Summary(r.Config))
	id := r.Dataset
	if id == "" {
		id = dataset.DatasetIDOf(r.Out)
	}
	if r.Implicit {
		line, err := res.AppendImplicit(ctx, r.StoreURL, id)
		if err != nil {
			return inputerr.Wrap(err)
		}
		fmt.Fprint(stdout, line)
	}
	if poolFile == "" {
		return nil
	}
	p, err := HarvestPool(ctx, res, r.StoreURL, id, r.PoolDepth)
	if err != nil {
		return err
	}
	if err := WritePool(p, poolFile, "text", stdout, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, HarvestNext(len(res.Sampled), r.PoolDepth, poolFile, id))
	return nil
}
