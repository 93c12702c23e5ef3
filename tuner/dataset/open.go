package dataset

import (
	"errors"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// DefaultSplitMinQueries is the number of judged queries from which a sweep
// selects on the dev split and confirms on the held-out test split by
// default (dataset.split unset); see docs/results.md "Select, then confirm".
const DefaultSplitMinQueries = 100

// OpenSweep opens a sweep's golden set (see OpenDataset). When
// splitGiven is false (dataset.split not set) and the set has at least
// DefaultSplitMinQueries judged queries, it splits it: the sweep tunes on
// dev, and the winner is confirmed on test; judged is then the number of
// judged queries (0 when it did not split).
func OpenSweep(d experiments.DatasetConfig, splitGiven bool, corpusFallback, cacheDir string) (ds *Dataset, judged int, err error) {
	ds, err = Open(d, corpusFallback, cacheDir)
	if err != nil || splitGiven {
		return ds, 0, err
	}
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			judged++
		}
	}
	if judged < DefaultSplitMinQueries {
		return ds, 0, nil
	}
	d.Split = experiments.SplitDev
	if ds, err = Open(d, corpusFallback, cacheDir); err != nil {
		return nil, 0, err
	}
	return ds, judged, nil
}

// HeldOutQueries returns Config.HeldOut for a sweep on the dev split of d: the
// test split's queries. After the trials, the test split failing to open
// fails the run (not an input error).
func HeldOutQueries(d experiments.DatasetConfig, corpusFallback, cacheDir string) func() ([]scoring.Query, error) {
	return func() ([]scoring.Query, error) {
		test := d
		test.Split = experiments.SplitTest
		ds, err := Open(test, corpusFallback, cacheDir)
		var ie *inputerr.Error
		if errors.As(err, &ie) {
			err = ie.Err
		}
		if err != nil {
			return nil, err
		}
		return ds.Queries, nil
	}
}
