package dataset

import (
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// QueryTexts returns the texts of qs by query id and the set of their ids.
func QueryTexts(qs []scoring.Query) (map[string]string, map[string]bool) {
	texts, known := make(map[string]string, len(qs)), make(map[string]bool, len(qs))
	for _, q := range qs {
		texts[q.ID], known[q.ID] = q.Text, true
	}
	return texts, known
}

// Gold returns the golden set's judgments of ds (query -> doc -> grade),
// of the queries that have any.
func (ds *Dataset) Gold() map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, q := range ds.Queries {
		if len(q.Judgments) > 0 {
			out[q.ID] = q.Judgments
		}
	}
	return out
}

// Categories returns the category of each query of ds ("" when none).
func (ds *Dataset) Categories() map[string]string {
	out := make(map[string]string, len(ds.Queries))
	for _, q := range ds.Queries {
		out[q.ID] = q.Category
	}
	return out
}

// JudgeDocs returns the documents of ds's corpus as a judge reads them
// (nil when ds has no corpus). A corpus that cannot be read is an
// *inputerr.Error naming dataset.corpus.
func (ds *Dataset) JudgeDocs() (map[string]judge.Doc, error) {
	if ds.Corpus == "" {
		return nil, nil
	}
	c, err := corpus.Load(corpus.Config{Path: ds.Corpus})
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("dataset.corpus: %w", err))
	}
	docs := make(map[string]judge.Doc, len(c.Docs))
	for _, d := range c.Docs {
		docs[d.ID] = judge.Doc{Title: d.Title, Text: d.Text}
	}
	return docs, nil
}

// PoolPairs reads the pool file at path (tune judge pool --out) and
// returns its pairs of dataset with query and document texts (documents
// from ds's corpus, when it has one). Problems are *inputerr.Error.
func (ds *Dataset) PoolPairs(path, dataset string) ([]judge.Pair, error) {
	docs, err := ds.JudgeDocs()
	if err != nil {
		return nil, err
	}
	return ds.PoolPairsWith(path, dataset, docs)
}

// PoolPairsWith is PoolPairs with the corpus's documents already read
// (JudgeDocs; nil: no corpus).
func (ds *Dataset) PoolPairsWith(path, dataset string, docs map[string]judge.Doc) ([]judge.Pair, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("--pool: %w", err))
	}
	defer f.Close()
	entries, err := judge.ReadPool(f, path)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	texts, _ := QueryTexts(ds.Queries)
	pairs, err := judge.Pairs(entries, dataset, texts, docs)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	return pairs, nil
}

// JudgeContexts returns what a judge may be shown about each query of ds
// beyond its text (judge.QueryContext): category and notes from the
// golden set, the rubric rubrics gives its category, and its reference
// passages: the judgments at the scale's top grade, in the golden set's
// order, a passage as its excerpt, a document as its title and text from
// docs (left out without them).
func (ds *Dataset) JudgeContexts(docs map[string]judge.Doc, rubrics map[string]string) map[string]judge.QueryContext {
	golden := map[string]int{}
	for i, q := range ds.Golden.Queries {
		golden[q.ID] = i
	}
	out := make(map[string]judge.QueryContext, len(ds.Queries))
	for _, sq := range ds.Queries {
		i, ok := golden[sq.ID]
		if !ok {
			continue
		}
		q := ds.Golden.Queries[i]
		c := judge.QueryContext{Category: q.Category, Notes: q.Notes, Rubric: rubrics[q.Category]}
		for _, j := range q.Judgments {
			if j.Grade != ds.Golden.Scale.Max {
				continue
			}
			switch d, ok := docs[j.DocID]; {
			case j.Substring != "":
				c.References = append(c.References, j.Substring)
			case j.DocID != "" && ok:
				c.References = append(c.References, strings.TrimSpace(d.Title+"\n"+d.Text))
			}
		}
		out[sq.ID] = c
	}
	return out
}
