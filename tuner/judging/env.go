package judging

import (
	"context"
	"errors"

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
	// Ensemble builds the judge ensemble of the settings (judge spec
	// "ensemble") and its LLM members (sharing one budget), their answers
	// cached in st; nil when none is set.
	Ensemble func(st *labels.Store) (*judge.Ensemble, []*llm.Judge, error)
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

// Judge returns the judge spec names: "ensemble" (Env.Ensemble), or as
// judge.ParseSpec reads it a qrels file judge or the LLM judge, caching
// its answers in st; ljs are its LLM judges (the judge itself, an
// ensemble's LLM members, none for a file).
func (e *Env) Judge(spec string, st *labels.Store) (j judge.Judge, ljs []*llm.Judge, err error) {
	if spec == EnsembleSpec {
		if e.Ensemble == nil {
			return nil, nil, inputerr.Wrap(errors.New("--judge ensemble: no judge.ensemble in the settings"))
		}
		return e.Ensemble(st)
	}
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
	lj, err := e.LLM(st)
	if err != nil {
		return nil, nil, err
	}
	return lj, []*llm.Judge{lj}, nil
}

// EnsembleSpec is the judge spec of the settings' judge ensemble.
const EnsembleSpec = "ensemble"
