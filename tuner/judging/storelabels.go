package judging

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// StoreLabels returns the labels of dataset (query -> doc -> grade, any
// source) in the label store at url; nil when it is a SQLite file that
// does not exist yet. A store that cannot be opened is an inputerr.Error.
func StoreLabels(ctx context.Context, url, dataset string) (map[string]map[string]int, error) {
	ls, err := latestLabels(ctx, url, dataset)
	if err != nil || ls == nil {
		return nil, err
	}
	return labels.ToQrels(ls), nil
}

// latestLabels returns each judge's latest label of each pair of dataset
// in the label store at url (labels.Store.Latest); nil when it is a
// SQLite file that does not exist yet. A store that cannot be opened is
// an inputerr.Error.
func latestLabels(ctx context.Context, url, dataset string) ([]labels.Label, error) {
	if labels.Absent(url) {
		return nil, nil
	}
	st, err := labels.Open(ctx, url)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("labels: %w", err))
	}
	defer st.Close()
	ls, err := st.Latest(ctx, dataset)
	if err != nil {
		return nil, fmt.Errorf("dataset.labels: %w", err)
	}
	return ls, nil
}
