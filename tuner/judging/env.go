package judging

import (
	"context"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Env is what the judge flows share: the dataset, its id in the label
// store, and how to reach the store and the LLM judge (the settings bind
// them; see cmd/tune/internal/settings' JudgeEnv).
type Env struct {
	// Data is the dataset (golden set, queries, corpus); ID its id in the
	// label store.
	Data *dataset.Dataset
	ID   string
	// OpenStore opens the label store; with create false, a store that
	// does not exist yet is not created and is nil.
	OpenStore func(ctx context.Context, create bool) (*labels.Store, error)
	// LLM builds the LLM judge, its answers cached in st (nil in a dry
	// run without a store).
	LLM func(st *labels.Store) (*llm.Judge, error)
	// Batch is the LLM judge's documents per call and Budget its bound,
	// as a dry run reports them.
	Batch  int
	Budget llm.Budget
}

// known returns the ids of the dataset's queries.
func (e *Env) known() map[string]bool {
	_, known := dataset.QueryTexts(e.Data.Queries)
	return known
}

// maxGrade is the golden set's top grade.
func (e *Env) maxGrade() int { return e.Data.Golden.Scale.Max }

// Rules are what the labels appended for the dataset must satisfy: its
// queries, its corpus's documents (when it has a corpus and missing
// documents are not allowed), its scale, one grade per pair.
func (e *Env) Rules() labels.Rules {
	return labels.Rules{Dataset: e.ID, Queries: e.known(), Docs: e.Data.Docs, MaxGrade: e.maxGrade()}
}

// PoolPairs reads the pool file at path and returns its pairs with query
// and document texts (documents from the dataset's corpus, when it has
// one). Problems are *inputerr.Error.
func (e *Env) PoolPairs(path string) ([]judge.Pair, error) {
	return e.Data.PoolPairs(path, e.ID)
}

// Judge returns the judge spec names (judge.ParseSpec): a qrels file
// judge, or the LLM judge (then lj is the same judge) caching its answers
// in st.
func (e *Env) Judge(spec string, st *labels.Store) (j judge.Judge, lj *llm.Judge, err error) {
	path, isFile, err := judge.ParseSpec(spec)
	switch {
	case err != nil:
		return nil, nil, err
	case isFile:
		f, err := judge.NewFile(path, e.Rules())
		if err != nil {
			return nil, nil, inputerr.Wrap(err)
		}
		return f, nil, nil
	}
	if lj, err = e.LLM(st); err != nil {
		return nil, nil, err
	}
	return lj, lj, nil
}
