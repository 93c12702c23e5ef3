package fusion

import (
	"fmt"
	"sort"
)

// DefaultLanceDBRankConstant is the k of LanceDB's RRFReranker when none
// is given (RRFReranker.create() in @lancedb/lancedb).
const DefaultLanceDBRankConstant = 60

// LanceDBRRF fuses a hybrid query's legs as LanceDB's RRFReranker does
// (@lancedb/lancedb 0.31.0, its Rust core's rerank_hybrid), for a query of
// the given limit; vector and fts are the vector and full-text legs, each
// as LanceDB returns it for that limit (best first; Candidate.ID the row
// id, the key LanceDB fuses by). The formula, in 32-bit floats:
//
//	score(row) = Σ over legs holding row of 1 / (k + pos)
//
// with pos the zero-based position in the leg, so the best row of a leg
// gets 1/k (1/60 by default), not 1/(k+1); each term is 1 / (pos + k)
// rounded to float32 and the sum adds the vector leg's term first. Both
// legs are limit deep (LanceDB runs each with the query's limit) and the
// fused ranking is cut at limit; limit <= 0 keeps whole lists.
//
// Ties: LanceDB lists the rows of the vector leg, then the rows of the
// full-text leg it does not hold, and sorts that list by score descending
// with Arrow's sort_to_indices, an unstable sort (Rust's
// sort_unstable_by). LanceDBRRF sorts the same list with the same
// algorithm (rustSortUnstable), so tied rows end in LanceDB's order: for
// up to 20 rows that is the list's order (vector leg first), beyond it is
// the order that algorithm gives, which is not the list's. There is no
// weight: LanceDB's RRF weighs both legs alike.
func LanceDBRRF(vector, fts []Candidate, k float32, limit int) []Result {
	if limit > 0 {
		vector, fts = vector[:min(limit, len(vector))], fts[:min(limit, len(fts))]
	}
	vector, fts = dedupeID(vector), dedupeID(fts)
	score := make(map[string]float32, len(vector)+len(fts))
	rows := make([]Candidate, 0, len(vector)+len(fts))
	for _, leg := range [][]Candidate{vector, fts} {
		for pos, c := range leg {
			s := float32(1) / (float32(pos) + k)
			if old, ok := score[c.ID]; ok {
				score[c.ID] = old + s
				continue
			}
			score[c.ID] = s
			rows = append(rows, c)
		}
	}
	type pair struct {
		row   uint32
		score float32
	}
	pairs := make([]pair, len(rows))
	for i, c := range rows {
		pairs[i] = pair{uint32(i), score[c.ID]}
	}
	rustSortUnstable(pairs, func(a, b *pair) bool { return a.score > b.score })
	if limit > 0 && len(pairs) > limit {
		pairs = pairs[:limit]
	}
	out := make([]Result, len(pairs))
	for i, p := range pairs {
		c := rows[p.row]
		out[i] = Result{ID: c.ID, DocID: docOf(&c), Score: float64(p.score)}
	}
	return out
}

// dedupeID keeps the first entry of each candidate id.
func dedupeID(list []Candidate) []Candidate {
	seen := make(map[string]bool, len(list))
	out := list[:0:0]
	for _, c := range list {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out
}

// LanceDBExpresses returns nil when LanceDB's hybrid query can rank under
// s (FormulaLanceDB): method rrf with k > 0, no weights other than 1, no
// floor, min_score or passage mode.
func LanceDBExpresses(s Settings) error {
	p := s.Fusion.WithDefaults()
	switch {
	case p.Method != RRF:
		return fmt.Errorf("fusion: lancedb: method %q: LanceDB's hybrid query fuses by rrf only", p.Method)
	case p.K <= 0:
		return fmt.Errorf("fusion: lancedb: k %g: must be > 0", p.K)
	case len(s.Floors) > 0:
		return fmt.Errorf("fusion: lancedb: per-retriever min_score is not expressed by a hybrid query")
	case s.MinScore != nil:
		return fmt.Errorf("fusion: lancedb: min_score is not expressed by a hybrid query")
	case s.Passage:
		return fmt.Errorf("fusion: lancedb: a hybrid query ranks rows, not passages")
	}
	for r, w := range p.Weights {
		if w != 1 {
			return fmt.Errorf("fusion: lancedb: weight %g of %q: LanceDB's RRF weighs both legs alike (1)", w, r)
		}
	}
	return nil
}

// lancedbInto appends the best n (all when n < 0) document units of pl
// fused by LanceDBRRF under s to dst[:0]: the lists "dense" (the vector
// leg) and "bm25" (the full-text leg), Candidate.ID the row id, each cut
// at s.Fusion.Depth, the query's limit. A document's first row keeps its
// place; later rows of it are dropped.
func (f *Fuser) lancedbInto(dst []Ranked, pl *Prepared, s Settings) []Ranked {
	p := s.Fusion.WithDefaults()
	legs := pl.legs(p.Depth)
	docs := pl.document.docIDs
	seen := make(map[int32]bool)
	dst = dst[:0]
	for _, r := range LanceDBRRF(legs["dense"], legs["bm25"], float32(p.K), p.Depth) {
		u := int32(sort.SearchStrings(docs, r.DocID))
		if seen[u] {
			continue
		}
		seen[u] = true
		dst = append(dst, Ranked{Score: r.Score, Unit: u})
	}
	return dst
}
