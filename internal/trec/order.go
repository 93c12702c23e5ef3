package trec

import (
	"cmp"
	"fmt"
)

// Compare orders two results of one query as trec_eval 10.0 ranks a run
// (comp_sim_docno in its form_res_rels.c): the higher score first, equal
// scores by document id descending (byte-wise, as strcmp compares). It
// returns a negative number when a ranks above b. This is the project's one
// tie rule: fusion, the embedded engine's retrievers and the replay rank
// ties this way (backend/fusion), and tune eval sorts runs with Compare, so
// a run file of a served ranking's own scores evaluates in the order that
// was served. Scores are compared as float64, as trec_eval 10.0 reads them
// (trec_eval 9.x stored them as float32, so scores equal in float32 tie
// there).
func Compare(a, b Result) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(b.DocNo, a.DocNo)
}

// CheckOrder returns an error naming the first pair of results out of
// Compare's order, or a document listed twice next to itself. A list in
// order keeps its order when an evaluator re-sorts it by score, so the
// ranks written for it are the ranks evaluated.
func CheckOrder(qid string, results []Result) error {
	for i := 1; i < len(results); i++ {
		if Compare(results[i-1], results[i]) >= 0 {
			p, r := results[i-1], results[i]
			return fmt.Errorf("query %q: rank %d (%q, score %v) does not rank above rank %d (%q, score %v) by score descending, then document id descending: trec_eval would reorder them",
				qid, i, p.DocNo, p.Score, i+1, r.DocNo, r.Score)
		}
	}
	return nil
}
