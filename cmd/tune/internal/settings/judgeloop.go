package settings

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/fusiontune/fusiontune/tuner/judging"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// LLMJudge builds the LLM judge of the settings' judge section for ds
// (grades up to its scale's top; the key from the environment; the
// queries' contexts, with judge.rubrics, when the prompt shows them),
// caching its answers in st; the API key joins r's secrets. Errors are
// the user's (inputerr.Error).
func (s *Settings) LLMJudge(ds *dataset.Dataset, st *labels.Store, r *runs.Redactor) (*llm.Judge, error) {
	cfg, err := s.LLMConfig(ds.DatasetID(), ds.Golden.Scale.Max, os.Getenv)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	if cfg.Prompt.UsesContext() {
		docs, err := ds.JudgeDocs()
		if err != nil {
			return nil, err
		}
		cfg.Contexts = ds.JudgeContexts(docs, s.Judge.Rubrics)
	}
	if cfg.APIKey != "" {
		r.AddHeader("Bearer " + cfg.APIKey)
	}
	cfg.Store, cfg.Redactor = st, r
	j, err := llm.New(cfg)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	return j, nil
}

// JudgeLoop completes l (its Budget, Target and Leading set from the
// command line) into the judge-as-you-tune loop of spec (llm: the
// settings' judge section, its answers cached in the judge store, which
// stays open; file:PATH: a qrels file) over the golden set's queries.
// The store URL's password joins r's secrets. A bad spec wraps
// judge.ErrSpec; the user's errors are input errors (inputerr.Error).
func (s *Settings) JudgeLoop(spec string, l judging.JudgeLoop, queries []scoring.Query, r *runs.Redactor) (*judging.JudgeLoop, error) {
	l.StoreURL = s.JudgeStoreURL()
	r.AddURLPassword(l.StoreURL)
	if err := l.Validate(); err != nil {
		return nil, inputerr.Wrap(err)
	}
	texts, known := dataset.QueryTexts(queries)
	path, isFile, err := judge.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if !isFile {
		return s.llmJudgeLoop(&l, texts, r)
	}
	f, err := judge.NewFile(path, labels.Rules{Queries: known})
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	l.Name = f.Name()
	l.Judge = judging.JudgeWith(f, texts, nil)
	return &l, nil
}

// llmJudgeLoop sets l's judge to the LLM judge of the settings (its
// answers cached in the loop's store), showing it the corpus documents.
func (s *Settings) llmJudgeLoop(l *judging.JudgeLoop, texts map[string]string, r *runs.Redactor) (*judging.JudgeLoop, error) {
	ds, err := s.OpenDataset() // the judge settings were checked with the rest
	if err != nil {
		return nil, err
	}
	st, err := labels.Open(context.Background(), l.StoreURL)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("labels: %w", err))
	}
	lj, err := s.LLMJudge(ds, st, r)
	if err != nil {
		st.Close()
		return nil, err
	}
	docs, err := ds.JudgeDocs()
	if err != nil {
		st.Close()
		return nil, err
	}
	l.Store, l.Name, l.Judge = st, lj.Name(), judging.JudgeWith(lj, texts, docs)
	return l, nil
}

// EnsembleJudge builds judge.ensemble for ds: each member a qrels file
// (relative to the settings file when written there) or the judge
// block's LLM judge with the member's fields in place of its own, the
// LLM members sharing the first one's budget and caching their answers
// in st. It returns the ensemble and its LLM members. Errors are the
// user's (inputerr.Error), naming the member.
func (s *Settings) EnsembleJudge(ds *dataset.Dataset, st *labels.Store, r *runs.Redactor) (*judge.Ensemble, []*llm.Judge, error) {
	ens := s.Judge.Ensemble
	if len(ens.Members) == 0 {
		return nil, nil, inputerr.Wrap(fmt.Errorf("%s: --judge ensemble: judge.ensemble.members is not set (want at least two judges)", s.Src.Where("judge")))
	}
	_, known := dataset.QueryTexts(ds.Queries)
	var members []judge.Judge
	var ljs []*llm.Judge
	for i, m := range ens.Members {
		key := fmt.Sprintf("judge.ensemble.members[%d]", i)
		if m.File != "" {
			path := m.File
			if s.Src.InFile(key + ".file") {
				path = s.BesideSettings(path)
			}
			f, err := judge.NewFile(path, labels.Rules{Dataset: ds.DatasetID(), Queries: known, Docs: ds.Docs, MaxGrade: ds.Golden.Scale.Max})
			if err != nil {
				return nil, nil, inputerr.Wrap(fmt.Errorf("%s: %s.file: %w", s.Src.Where(key+".file"), key, err))
			}
			members = append(members, f)
			continue
		}
		one := *s
		one.Judge.URL = cmp.Or(m.URL, s.Judge.URL)
		one.Judge.Model = cmp.Or(m.Model, s.Judge.Model)
		one.Judge.APIKeyEnv = cmp.Or(m.APIKeyEnv, s.Judge.APIKeyEnv)
		if m.Prompt != "" {
			one.Judge.Prompt = m.Prompt
			if m.Prompt != llm.PromptGraded && m.Prompt != llm.PromptHPN && s.Src.InFile(key+".prompt") {
				one.Judge.Prompt = s.BesideSettings(m.Prompt)
			}
		}
		lj, err := one.LLMJudge(ds, st, r)
		if err != nil {
			return nil, nil, fmt.Errorf("%s (%s): %w", key, s.Src.Where(key), err)
		}
		if len(ljs) > 0 {
			lj.ShareBudget(ljs[0])
		}
		members, ljs = append(members, lj), append(ljs, lj)
	}
	e, err := judge.NewEnsemble(ds.DatasetID(), members, cmp.Or(ens.Vote, DefaultEnsembleVote), ds.Golden.Scale.Max)
	if err != nil {
		return nil, nil, inputerr.Wrap(fmt.Errorf("%s: judge.ensemble: %w", s.Src.Where("judge.ensemble"), err))
	}
	return e, ljs, nil
}
