package judging

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"

	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// Pool pools the unjudged pairs of run's chosen trials (PoolRun),
// leaving out the pairs the label store at storeURL judges for the run's
// dataset (no store yet: none).
func Pool(ctx context.Context, run *runs.Run, storeURL string, o PoolOptions) (*pool.Pool, error) {
	var err error
	if o.Labels, err = StoreLabels(ctx, storeURL, dataset.RunDatasetID(run)); err != nil {
		return nil, err
	}
	return PoolRun(run, o)
}

// HarvestPool pools the logged answers to the queries a harvest added
// (HarvestPool) for dataset, leaving out the pairs the label store
// at storeURL judges other than by implicit feedback.
func HarvestPool(ctx context.Context, r *harvest.Result, storeURL, dataset string, depth int) (*pool.Pool, error) {
	judged, err := JudgedExceptImplicit(ctx, storeURL, dataset)
	if err != nil {
		return nil, err
	}
	return PoolHarvested(r, dataset, depth, judged)
}

// HarvestNext says where a harvest's pool of added queries went and how
// to judge it.
func HarvestNext(added, depth int, file, dataset string) string {
	return fmt.Sprintf("harvest: pooled the logged answers of the %d added queries (depth %d) into %[3]s; with dataset %[4]q in the settings' datasets, judge them with 'tune judge run --dataset-id %[4]s --pool %[3]s' (llm), or 'tune judge export' or 'tune ui --dataset-id %[4]s --pool %[3]s' (people)",
		added, depth, file, dataset)
}

// WritePool writes the pool's pairs as JSON lines to the file out
// (atomically; a file that cannot be written is a *inputerr.Error), or
// to stdout when out is "", and its statistics as format "text" or
// "json": to stdout with out, to stderr without.
func WritePool(p *pool.Pool, out, format string, stdout, stderr io.Writer) error {
	statsTo, err := writePairs(p.Pairs, out, stdout, stderr)
	if err != nil {
		return err
	}
	if format == "json" {
		data, err := runs.MarshalJSON(p.Stats)
		if err != nil {
			return err
		}
		_, err = statsTo.Write(data)
		return err
	}
	return pool.WriteStats(statsTo, p.Stats)
}

// writePairs writes pairs as JSON lines to the file out (atomically; a
// file that cannot be written is a *inputerr.Error), or to stdout when
// out is "", and returns where the pool's statistics go: stdout with out,
// stderr without.
func writePairs(ps []pool.Pair, out string, stdout, stderr io.Writer) (io.Writer, error) {
	var pairs bytes.Buffer
	if err := pool.WriteJSONL(&pairs, ps); err != nil {
		return nil, err
	}
	if out == "" {
		_, err := stdout.Write(pairs.Bytes())
		return stderr, err
	}
	if err := runs.WriteFileAtomic(out, pairs.Bytes(), 0o644); err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--out: %w", err))
	}
	return stdout, nil
}
