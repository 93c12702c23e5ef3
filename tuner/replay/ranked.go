package replay

import "github.com/fusiontune/fusiontune/runs"

// Ranked fuses replayed trial t's candidate lists (or those of a
// replayed trial verified live) again and returns each
// query's ranking to depth n (query id -> document ids, best first, a
// document at its first rank; failed queries and queries without lists
// left out): deeper than the recorded top hits where the lists hold more
// candidates. It is what the engine would return for the trial's
// settings asked for n hits. judgments are the collection's judgments
// of each query (those the run was scored with).
func (r *Results) Ranked(t runs.TrialRecord, n int) (rankings map[string][]string, judgments map[string]map[string]int, err error) {
	if t.Replay == nil {
		t.Replay = t.Replayed // a replayed trial verified live
	}
	col, s, err := r.collectionOf(t)
	if err != nil {
		return nil, nil, err
	}
	rp := NewReplayer(col.Scorer, n)
	s = LegDepth(s, n)
	out := make(map[string][]string, len(col.Queries))
	judgments = make(map[string]map[string]int, len(col.Queries))
	for i := range col.Queries {
		c := &col.Queries[i]
		judgments[c.Q.ID] = c.Q.Judgments
		if c.Err != "" || c.Lists == nil {
			continue
		}
		ids := c.Lists.DocIDs(s.Passage)
		seen := map[string]bool{}
		var docs []string
		for _, x := range rp.Rank(c.Lists, s, n) {
			if d := ids[x.Unit]; !seen[d] {
				seen[d] = true
				docs = append(docs, d)
			}
		}
		out[c.Q.ID] = docs
	}
	return out, judgments, nil
}
