package settings

import (
	"context"
	"fmt"
	"io"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// JudgeEnv opens the settings' dataset (its warnings go to log) and
// returns the judge commands' environment: the dataset's id in the label
// store, the store of the labels setting (OpenLabels) and the LLM judge of
// the judge section (LLMJudge, read when it is built), with its batch and
// budget as they are now. Secrets the store URL or the API key carry join
// r.
func (s *Settings) JudgeEnv(r *runs.Redactor, log io.Writer) (*judging.Env, error) {
	ds, err := s.OpenDataset()
	if err != nil {
		return nil, err
	}
	for _, w := range ds.Warnings {
		fmt.Fprintln(log, "warning:", w)
	}
	id := ds.DatasetID()
	return &judging.Env{
		Data: ds, ID: id,
		OpenStore: func(ctx context.Context, create bool) (*labels.Store, error) {
			return s.OpenLabels(ctx, r, create)
		},
		LLM: func(st *labels.Store) (*llm.Judge, error) {
			return s.LLMJudge(ds, st, r)
		},
		Ensemble: func(st *labels.Store) (*judge.Ensemble, []*llm.Judge, error) {
			return s.EnsembleJudge(ds, st, r)
		},
		Batch:  Or(s.Judge.Batch, llm.DefaultBatch),
		Budget: llm.Budget{Calls: Or(s.Judge.Budget.Calls, 0), Tokens: Or(s.Judge.Budget.Tokens, 0)},
	}, nil
}
