package fusion

import "fmt"

// Postgres fuses candidate lists the way the postgres backend kind's
// shipped hybrid SQL (backend/postgres HybridSQL) does, for its two
// methods, in document mode:
//
//   - rrf: Σ w_r / (k + rank_r), rank 1-based within each list after the
//     depth cut and the collapse of chunks to their documents (a
//     document's best chunk keeps its place), lists with weight 0 left
//     out;
//   - linear: Σ w_r · (s − min_r) · (1 / (max_r − min_r)) over each
//     collapsed list, a constant list normalized to 1.
//
// Floors (s.Floors) drop the candidates scoring below them before either.
// Terms are added bm25 first, then dense, each to 0, in float8, so the
// SQL and this function agree bit for bit.
//
// Tie rules, two of them: inside each leg, equal scores rank by chunk id
// ascending in byte order (the SQL's ORDER BY score DESC, id COLLATE "C":
// the positions, hence the RRF ranks, the candidate lists carry); in the
// fused list, equal scores rank by document id descending in byte order
// (COLLATE "C" DESC), which is Fuse's rule for these two methods. Postgres
// takes the leg positions as the lists give them and calls Fuse after
// checking that s is one the SQL can express: method rrf, or linear with
// min_max normalization, no MinScore, no passage mode.
func Postgres(lists map[string][]Candidate, s Settings) ([]Result, error) {
	if err := PostgresExpresses(s); err != nil {
		return nil, err
	}
	var f Fuser
	pl := Prepare(lists)
	ranked := f.HitsInto(nil, pl, s, -1)
	ids, docs := pl.IDs(false), pl.DocIDs(false)
	out := make([]Result, len(ranked))
	for i, r := range ranked {
		out[i] = Result{ID: ids[r.Unit], DocID: docs[r.Unit], Score: r.Score}
	}
	return out, nil
}

// PostgresExpresses returns nil when the postgres kind's SQL can rank
// under s, else what it cannot express.
func PostgresExpresses(s Settings) error {
	p := s.Fusion.WithDefaults()
	switch {
	case p.Method != RRF && p.Method != Linear:
		return fmt.Errorf("fusion: postgres: method %q: the SQL fuses by rrf or linear only", p.Method)
	case p.Method == Linear && p.Normalization != MinMax:
		return fmt.Errorf("fusion: postgres: normalization %q: the SQL normalizes by min_max only", p.Normalization)
	case s.MinScore != nil:
		return fmt.Errorf("fusion: postgres: min_score is not expressed by the SQL")
	case s.Passage:
		return fmt.Errorf("fusion: postgres: the SQL ranks documents, not passages")
	}
	return nil
}
