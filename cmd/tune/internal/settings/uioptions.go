package settings

import (
	"io"
	"log/slog"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// UIOptions opens what `tune ui` serves from the settings: the runs in
// store, the dataset (every query, the label store's labels merged), the
// scorer, the backend, the corpus's documents (read once) and the pool
// file to judge ("" none). Secrets the settings name join r; notes go to
// log. The user's errors are input errors (inputerr.Error).
func (s *Settings) UIOptions(store *runs.Store, pool string, r *runs.Redactor, log io.Writer) (ui.Options, error) {
	var o ui.Options
	d := s.Dataset
	d.Split = experiments.SplitAll // the microscope and judge pages offer every query
	ds, err := dataset.Open(d, s.EngineCorpusPath(), CachePath(""))
	if err != nil {
		return o, err
	}
	gold := map[string]map[string]int{} // before any label store is merged
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			gold[q.ID] = q.Judgments
		}
	}
	if err := s.MergeStoreLabels(ds, r, log); err != nil {
		return o, err
	}
	scorer, err := s.Score.Scorer(ds.Golden.Scale)
	if err != nil {
		return o, inputerr.Wrap(err)
	}
	f, err := s.Factory(ds.Corpus, r)
	if err != nil {
		return o, inputerr.Wrap(err)
	}
	o = ui.Options{Store: store, Dataset: ds, Gold: gold, Scorer: scorer, K: s.Eval.K, Backend: f, Labels: s.JudgeStoreURL(),
		Compare: func(seed int64) analysis.CompareOptions { return analysis.CompareOptions{Stats: s.StatsOptions(seed)} },
		Log:     slog.New(slog.NewTextHandler(log, nil))}
	docs, err := ds.JudgeDocs()
	if err != nil {
		return o, inputerr.Wrap(err)
	}
	if docs != nil {
		o.Docs = ui.DocsOf(docs)
	}
	if o.PoolFile = pool; pool != "" {
		if o.Pool, err = ds.PoolPairsWith(pool, ds.DatasetID(), docs); err != nil {
			return o, err
		}
	}
	return o, nil
}
