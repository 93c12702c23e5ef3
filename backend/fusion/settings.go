package fusion

import "sort"

// Routing labels of a search response, set by the post-fusion rule.
const (
	RoutingSearch    = "search"     // hits passed the thresholds
	RoutingNoResults = "no_results" // nothing passed: the query is off-topic
)

// Settings are the query-time settings a search ranks with: the fusion,
// the per-retriever floors on candidate scores, the threshold on fused
// scores and the unit ranked. The embedded engine ranks every request
// under them, and the tuner's replay fuses a trial's candidate lists under
// them, through the same rules (Fuser.HitsInto, Settings.Cut, Routing).
//
// Routing is decided in three steps, all query-time:
//
//  1. Floors: each retriever's list, cut at the fusion depth, is cut again
//     at its first candidate scoring below the retriever's floor
//     (bm25.min_score, dense.min_score). Retrievers return their lists
//     best first, so this drops every candidate below the floor; the
//     dropped candidates take no part in the fusion (neither in the
//     normalization of the list nor in RRF ranks).
//  2. MinScore: the fused ranking is cut at its first hit scoring below
//     MinScore (the fused min_score), Settings.Cut.
//  3. Routing: a response with no hit left is "no_results" (the query is
//     off-topic), any other "search" (see Routing).
//
// So a query is routed off-topic when every retriever's candidates fall
// below their floors, or every fused score falls below MinScore.
//
// Replayed trial records store Settings as JSON under these keys
// ({"Fusion":{...},"MinScore":null,"Passage":false}, and "Floors" when
// set): keep them.
type Settings struct {
	// Fusion is the effective fusion (defaults applied, Depth set); its
	// Weights should name every enabled retriever, so that a per-request
	// override built from it inherits no weight from the running
	// configuration.
	Fusion Params `json:"Fusion"`
	// Floors holds the per-retriever floors on candidate scores (retriever
	// name -> min_score; a retriever without one keeps its whole list).
	Floors map[string]float64 `json:"Floors,omitempty"`
	// MinScore drops fused hits scoring below it (nil: no threshold).
	MinScore *float64 `json:"MinScore"`
	// Passage ranks chunks instead of documents.
	Passage bool `json:"Passage"`
	// Formula is whose fusion formula ranks: FormulaOwn (the project's
	// engine, Fuse), FormulaWeaviate (WeaviateHybrid, float32 and
	// Weaviate's tie rule) or FormulaLanceDB (LanceDBRRF, float32 and
	// LanceDB's tie rule); anything else panics.
	Formula string `json:"Formula,omitempty"`
	// Rerank, when set, is a rerank stage after fusion: a reranker's
	// scores reorder the first Window fused hits (backend/rerank's blend);
	// nil: none. Ranking with it takes the reranker's scores beside the
	// candidate lists.
	Rerank *RerankSettings `json:"Rerank,omitempty"`
}

// RerankSettings are a rerank stage's window (fused hits reranked) and
// weight (the reranker's share of the blend, 0 to 1).
type RerankSettings struct {
	Window int     `json:"window"`
	Weight float64 `json:"weight"`
}

// Below reports whether a fused score falls below s.MinScore: never
// without a threshold, and never for a NaN score.
func (s Settings) Below(score float64) bool {
	return s.MinScore != nil && score < *s.MinScore
}

// Cut applies the min_score rule to a fused ranking in RankInto's order
// (best first): it returns the ranking up to, not including, the first
// entry whose score is Below the threshold. Every later entry scores lower
// or is NaN, and is dropped with it.
func (s Settings) Cut(ranked []Ranked) []Ranked {
	for i, r := range ranked {
		if s.Below(r.Score) {
			return ranked[:i]
		}
	}
	return ranked
}

// Routing returns the routing of a response holding hits hits:
// RoutingNoResults when there is none (everything fell below min_score),
// else RoutingSearch.
func Routing(hits int) string {
	if hits == 0 {
		return RoutingNoResults
	}
	return RoutingSearch
}

// Floor returns the number of candidates of a list (best first) that pass
// the floor of retriever: the position of its first candidate scoring
// below the floor, or len(list) when none does or retriever has no floor.
// A NaN score is never below a floor.
func (s Settings) Floor(retriever string, list []Candidate) int {
	floor, ok := s.Floors[retriever]
	if !ok {
		return len(list)
	}
	for i, c := range list {
		if c.Score < floor {
			return i
		}
	}
	return len(list)
}

// HitsInto ranks prepared lists as a search answers under s: each list
// cut at its retriever's floor (Settings.Floors), fused, the best n fused
// units (all when n < 0), cut by s (Settings.Cut), appended to dst[:0].
// Their routing is Routing(len(hits)).
func (f *Fuser) HitsInto(dst []Ranked, pl *Prepared, s Settings, n int) []Ranked {
	if s.formula() {
		dst = f.engineInto(dst, pl, s)
		if n >= 0 && n < len(dst) {
			dst = dst[:n]
		}
		return s.Cut(dst)
	}
	return s.Cut(f.rankInto(dst, pl, s.Fusion, s.Passage, n, s.Floors))
}

// ScoreSettingsInto is ScoreInto under s: every fused unit with its score,
// each list cut at its retriever's floor first, in unit order (no
// MinScore cut: Settings.Below tells which units it would drop). Under
// FormulaWeaviate or FormulaLanceDB the scores are the engine's, but
// Ranked.Before does not order them as the engine does (its tie rule
// differs): rank with HitsInto.
func (f *Fuser) ScoreSettingsInto(dst []Ranked, pl *Prepared, s Settings) []Ranked {
	if s.formula() {
		dst = f.engineInto(dst, pl, s)
		sort.Slice(dst, func(i, j int) bool { return dst[i].Unit < dst[j].Unit })
		return dst
	}
	return f.scoreInto(dst, pl, s.Fusion, s.Passage, s.Floors)
}

// formula reports whether s names another engine's formula than the
// project's own (FormulaWeaviate, FormulaLanceDB; panics on an unknown
// one).
func (s Settings) formula() bool {
	switch s.Formula {
	case FormulaOwn:
		return false
	case FormulaWeaviate, FormulaLanceDB:
		return true
	}
	panic("fusion: unknown formula " + s.Formula)
}

// engineInto ranks pl under another engine's formula (s.formula()).
func (f *Fuser) engineInto(dst []Ranked, pl *Prepared, s Settings) []Ranked {
	if s.Formula == FormulaLanceDB {
		return f.lancedbInto(dst, pl, s)
	}
	return f.weaviateInto(dst, pl, s)
}
