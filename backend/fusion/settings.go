package fusion

// Routing labels of a search response, set by the post-fusion rule.
const (
	RoutingSearch    = "search"     // hits passed the thresholds
	RoutingNoResults = "no_results" // nothing passed: the query is off-topic
)

// Settings are the query-time settings a search ranks with: the fusion,
// the threshold on fused scores and the unit ranked. The embedded engine
// ranks every request under them, and the tuner's replay fuses a trial's
// candidate lists under them, through the same post-fusion rule
// (Fuser.HitsInto, Settings.Cut, Routing).
//
// Replayed trial records store Settings as JSON under these keys
// ({"Fusion":{...},"MinScore":null,"Passage":false}): keep them.
type Settings struct {
	// Fusion is the effective fusion (defaults applied, Depth set); its
	// Weights should name every enabled retriever, so that a per-request
	// override built from it inherits no weight from the running
	// configuration.
	Fusion Params `json:"Fusion"`
	// MinScore drops fused hits scoring below it (nil: no threshold).
	MinScore *float64 `json:"MinScore"`
	// Passage ranks chunks instead of documents.
	Passage bool `json:"Passage"`
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

// HitsInto ranks prepared lists as a search answers under s: the best n
// fused units (all when n < 0), cut by s (Settings.Cut), appended to
// dst[:0]. Their routing is Routing(len(hits)).
func (f *Fuser) HitsInto(dst []Ranked, pl *Prepared, s Settings, n int) []Ranked {
	return s.Cut(f.RankInto(dst, pl, s.Fusion, s.Passage, n))
}
