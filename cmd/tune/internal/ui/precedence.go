package ui

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// goldBy is who a golden-set judgment is shown as given by.
const goldBy = "golden set"

// mergeStore merges the label store's labels into the dataset's
// judgments by the documented precedence (labels.Effective over the
// golden set's own judgments, Options.Gold), so that the microscope and
// the judge page grade alike from the start; it records the golden set's
// judgments when Options.Gold is nil.
func (s *Server) mergeStore() error {
	if s.o.Dataset == nil {
		return nil
	}
	if s.o.Gold == nil {
		s.o.Gold = map[string]map[string]int{}
		for _, q := range s.o.Dataset.Queries {
			if len(q.Judgments) > 0 {
				s.o.Gold[q.ID] = q.Judgments
			}
		}
	}
	stored, err := s.storedLabels(context.Background())
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	for i := range s.o.Dataset.Queries {
		q := &s.o.Dataset.Queries[i]
		var j map[string]int
		for doc, l := range stored[q.ID] {
			if _, gold := s.o.Gold[q.ID][doc]; gold {
				continue
			}
			if j == nil {
				j = make(map[string]int, len(q.Judgments)+len(stored[q.ID]))
				for k, v := range q.Judgments {
					j[k] = v
				}
			}
			j[doc] = l.Grade
		}
		if j != nil {
			q.Judgments = j
		}
	}
	return nil
}

// isGold reports whether the golden set itself judges (query, doc): its
// grade wins over every label.
func (s *Server) isGold(query, doc string) bool {
	_, ok := s.o.Gold[query][doc]
	return ok
}

// gradeOf is doc's grade for q as every page shows it, and who gave it:
// the golden set's own judgment, else the winning label of the store
// (stored: the best label of each pair, storedLabels), else a judgment
// merged from elsewhere (dataset.labels); -1 when unjudged.
func (s *Server) gradeOf(q scoring.Query, doc string, stored map[string]map[string]labels.Label) (int, string) {
	if g, ok := s.o.Gold[q.ID][doc]; ok {
		return g, goldBy
	}
	if l, ok := stored[q.ID][doc]; ok {
		return l.Grade, l.Judge
	}
	if g, ok := q.Judgments[doc]; ok {
		return g, "dataset.labels"
	}
	return -1, ""
}

// rubric says what grade g means on scale: not relevant below its
// relevant grade, then relevant, strongly relevant, and the exact answer
// at its exact grade and above.
func rubric(scale experiments.Scale, g int) string {
	switch {
	case g < scale.Relevant:
		return "not relevant: does not help answer the query"
	case g < scale.Strong:
		return "relevant: touches the query, answers little of it"
	case g < scale.Exact:
		return "strongly relevant: answers most of the query"
	}
	return "exactly relevant: fully answers the query"
}
