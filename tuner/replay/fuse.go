package replay

import (
	"encoding/binary"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/rerank"
	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Query is one query made ready for replay: its candidate lists
// and, for the fast path, its judgments prepared once and the grade of
// every document the lists hold.
type Query struct {
	Q     scoring.Query
	Lists *fusion.Prepared
	// Rerank is the reranker's score of every candidate by id, collected
	// with a rerank stage (backend.SearchResponse.Rerank); nil without.
	Rerank map[string]float64
	judged *metrics.Query // nil without the fast path
	grade  []int          // per document unit of lists: the grade (0 when unjudged)
	isJudg []bool         // per document unit: judged
	// judgedUnits is how many document units are judged.
	judgedUnits int
	// quoted holds every document unit's id as the result key's line
	// writes it, a space and the id quoted (appendQuoted), unit u's at
	// quoted[at[u]:at[u+1]]: the facts append them without quoting per
	// config. Empty without lists. short[u] is the same bytes, zero
	// padded, when they fit in 16 (two words a line takes at once).
	quoted []byte
	at     []int32
	short  [][2]uint64
}

// Replayer fuses one query's prepared candidate lists under a trial's
// settings and scores the ranking, as the engine and runQuery would, with
// buffers reused across calls. It is not safe for concurrent use.
type Replayer struct {
	sc    scoring.Scorer
	Names []string               // sc.Metrics()
	fast  *scoring.MetricsScorer // sc when it is one: scores grades into a slice
	k     int                    // hits per query, as requested live
	// depth is how many documents the scorecard reads (-1: all); in
	// document mode the fused ranking is cut there instead of at k, which
	// changes no score: documents are unique and min_score cuts a prefix.
	depth int

	f      fusion.Fuser
	ranked []fusion.Ranked
	// count is how many hits the last ranking returned (routing).
	count  int
	all    []fusion.Ranked // every fused unit, unsorted (scoreByRank)
	best   []fusion.Ranked // the best of all, in order (scoreByRank's top)
	ids    []string
	grades []int
	judged []bool
	vals   []float64
	// byID: the last scoring read the ranking's ids (ids), not grades
	// (grades, judged).
	byID bool
	top  []int // TopGrades' buffer
}

// NewReplayer returns a replayer scoring with sc the rankings of a live
// request for k hits (0: scoring only).
func NewReplayer(sc scoring.Scorer, k int) *Replayer {
	rp := &Replayer{sc: sc, Names: sc.Metrics(), k: k, depth: -1}
	if rp.fast, _ = sc.(*scoring.MetricsScorer); rp.fast != nil {
		rp.depth = 0
		for _, m := range rp.fast.Card().Metrics {
			if m.K == 0 { // no cutoff: the whole ranking (as metrics.Scorecard)
				rp.depth = -1
				break
			}
			rp.depth = max(rp.depth, m.K)
		}
	}
	return rp
}

// Prepare readies q and its candidate lists for replay.
func (rp *Replayer) Prepare(q scoring.Query, lists *fusion.Prepared) Query {
	rq := Query{Q: q, Lists: lists}
	if lists == nil {
		return rq
	}
	docIDs := lists.DocIDs(false)
	rq.at = make([]int32, len(docIDs)+1)
	rq.short = make([][2]uint64, len(docIDs))
	for u, d := range docIDs {
		rq.quoted = appendQuoted(append(rq.quoted, ' '), d)
		rq.at[u+1] = int32(len(rq.quoted))
		if q := rq.quoted[rq.at[u]:]; len(q) <= 16 {
			var w [16]byte
			copy(w[:], q)
			rq.short[u] = [2]uint64{binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])}
		}
	}
	if rp.fast == nil {
		return rq
	}
	rq.judged = metrics.NewQuery(metrics.Judgments(q.Judgments), rp.fast.Options())
	docs := lists.DocIDs(false)
	rq.grade = make([]int, len(docs))
	rq.isJudg = make([]bool, len(docs))
	for u, d := range docs {
		g, ok := q.Judgments[d]
		rq.grade[u], rq.isJudg[u] = max(g, 0), ok
		if ok {
			rq.judgedUnits++
		}
	}
	return rq
}

// Cut is how many fused hits to rank: k, or fewer in document mode when
// the scorecard and the recorded top read fewer.
func (rp *Replayer) Cut(passage bool, recorded int) int {
	if passage || rp.depth < 0 {
		return rp.k
	}
	return min(rp.k, max(rp.depth, recorded))
}

// Rank returns the first n hits the engine would return, best first, as
// units of pl: fused under s, stopping at the first score below
// s.MinScore (fusion.Fuser.HitsInto, the rule the engine ranks by).
func (rp *Replayer) Rank(pl *fusion.Prepared, s fusion.Settings, n int) []fusion.Ranked {
	rp.ranked = rp.f.HitsInto(rp.ranked, pl, s, n)
	rp.count = len(rp.ranked)
	return rp.ranked
}

// ScoreRanked scores ranked units of rq: by grade lookup in document
// mode (units are unique documents), else by document id through the
// scorer, which counts a document once, at its first rank, as rankingOf
// does for live hits. It returns the metric values in the scorer's order
// (valid until the next call) and the primary score.
func (rp *Replayer) ScoreRanked(rq *Query, passage bool, ranked []fusion.Ranked) ([]float64, float64) {
	rp.byID = rp.fast == nil || passage
	if !rp.byID {
		rp.grades, rp.judged = rp.grades[:0], rp.judged[:0]
		for _, r := range ranked {
			rp.grades = append(rp.grades, rq.grade[r.Unit])
			rp.judged = append(rp.judged, rq.isJudg[r.Unit])
		}
		rp.vals = rp.fast.Card().ScoreGrades(rp.vals, rp.grades, rp.judged, rq.judged)
		return rp.vals, rp.fast.PrimaryOf(rp.vals)
	}
	docIDs := rq.Lists.DocIDs(passage)
	rp.ids = rp.ids[:0]
	for _, r := range ranked {
		rp.ids = append(rp.ids, docIDs[r.Unit])
	}
	scores, primary := rp.sc.Score(rankingOfIDs(rp.ids), rq.Q.Judgments)
	rp.vals = rp.vals[:0]
	for _, m := range rp.Names {
		rp.vals = append(rp.vals, scores[m])
	}
	return rp.vals, primary
}

// Score fuses and scores one query under s: the replay's hot path.
func (rp *Replayer) Score(rq *Query, s fusion.Settings) ([]float64, float64) {
	s = LegDepth(s, rp.k)
	if s.Rerank != nil {
		return rp.ScoreRanked(rq, s.Passage, rp.rankReranked(rq, s, rp.Cut(s.Passage, 0)))
	}
	if rp.fast != nil && !s.Passage && s.Formula == fusion.FormulaOwn { // another engine's tie rule: sort
		if vals, primary, ok := rp.scoreByRank(rq, s, 0); ok {
			return vals, primary
		}
	}
	return rp.ScoreRanked(rq, s.Passage, rp.Rank(rq.Lists, s, rp.Cut(s.Passage, 0)))
}

// rankReranked returns the first n hits of rq under s with its rerank
// stage, as the engine answers them: the fused ranking (Rank) at least
// s.Rerank.Window deep, its first Window units reordered by the blend of
// the reranker's collected scores (rerank.Rerank), the rest after them,
// cut at n. Scores are the blended ones; rp.Routing() is the fused
// ranking's. A unit without a collected score scores 0.
func (rp *Replayer) rankReranked(rq *Query, s fusion.Settings, n int) []fusion.Ranked {
	ranked := rp.Rank(rq.Lists, s, max(n, s.Rerank.Window))
	w := min(s.Rerank.Window, len(ranked))
	ids := rq.Lists.IDs(s.Passage)
	fused := make([]float64, len(ranked))
	rr := make([]float64, w)
	for i, r := range ranked {
		fused[i] = r.Score
		if i < w {
			rr[i] = rq.Rerank[ids[r.Unit]]
		}
	}
	order, scores, err := rerank.Rerank(fused, rr, s.Rerank.Weight)
	if err != nil {
		panic(err) // w <= len(ranked), and the weight was checked when resolved
	}
	out := make([]fusion.Ranked, min(n, len(ranked)))
	for i := range out {
		out[i] = ranked[order[i]]
		out[i].Score = scores[i]
	}
	return out
}

// maxRankedJudged bounds the judged documents scoreByRank places by
// counting (each costs a pass over the fused units); with more, sorting
// is cheaper.
const maxRankedJudged = 16

// scoreByRank scores one query in document mode without sorting: every
// metric reads the grades by rank, and only judged documents have a grade
// or count as judged, so it places each judged document at its rank (the
// units ranked before it, counted) in an otherwise unjudged ranking of
// the same length. The values are those of scoreRanked over the sorted
// ranking. ok is false (sort instead) with a NaN score or many judged
// documents in the lists.
//
// With top > 0 the best top units are ranked (fusion.Fuser.TopInto, at
// most the units kept, into rp.best), and a judged unit among them takes
// its place there; only the judged units past them are placed by
// counting.
func (rp *Replayer) scoreByRank(rq *Query, s fusion.Settings, top int) (vals []float64, primary float64, ok bool) {
	fs := s
	rp.all = rp.f.ScoreSettingsInto(rp.all, rq.Lists, s) // s.Passage is false
	kept, judged := 0, 0                                 // units at or above min_score; judged among them
	if fs.MinScore == nil && rq.judgedUnits <= maxRankedJudged {
		// Every unit is kept, and however many of them are judged
		// they are few enough: only NaN is to be ruled out.
		if fusion.AnyNaN(rp.all) {
			return nil, 0, false
		}
		kept = len(rp.all)
	} else {
		for _, r := range rp.all {
			if r.Score != r.Score {
				return nil, 0, false
			}
			if !fs.Below(r.Score) { // r.Score is not NaN
				kept++
				if rq.isJudg[r.Unit] {
					judged++
				}
			}
		}
		if judged > maxRankedJudged {
			return nil, 0, false
		}
	}
	n := min(rp.Cut(false, 0), kept)
	rp.grades, rp.judged = slices.Grow(rp.grades[:0], n)[:n], slices.Grow(rp.judged[:0], n)[:n]
	clear(rp.grades)
	clear(rp.judged)
	rp.best = rp.best[:0]
	rest := rp.all
	if top > 0 {
		// The best kept units are the ones at or above min_score.
		top = min(top, kept)
		rp.best = rp.f.TopInto(rp.best, rp.all, top)
		for rank, u := range rp.best[:min(top, n)] {
			if rq.isJudg[u.Unit] {
				rp.grades[rank], rp.judged[rank] = rq.grade[u.Unit], true
			}
		}
		if top >= n { // every unit past them ranks at n or below
			rest = nil
		}
	}
	for _, u := range rest {
		if !rq.isJudg[u.Unit] || fs.Below(u.Score) {
			continue
		}
		if len(rp.best) > 0 && !rp.best[len(rp.best)-1].Before(u) { // among the best, placed
			continue
		}
		if rank := fusion.CountBefore(rp.all, u); rank < n { // no score is NaN
			rp.grades[rank], rp.judged[rank] = rq.grade[u.Unit], true
		}
	}
	rp.count, rp.byID = kept, false
	rp.vals = rp.fast.Card().ScoreGrades(rp.vals, rp.grades, rp.judged, rq.judged)
	return rp.vals, rp.fast.PrimaryOf(rp.vals), true
}

// Record fills r with the replayed outcome of one query: routing, scores,
// the recorded top hits and labels, as runQuery records a live one.
func (rp *Replayer) Record(r *runs.QueryResult, rq *Query, s fusion.Settings) {
	s = LegDepth(s, rp.k)
	var ranked []fusion.Ranked
	if s.Rerank != nil {
		ranked = rp.rankReranked(rq, s, rp.Cut(s.Passage, scoring.TopRecorded))
	} else {
		ranked = rp.Rank(rq.Lists, s, rp.Cut(s.Passage, scoring.TopRecorded))
	}
	n := min(len(ranked), scoring.TopRecorded)
	hits := make([]backend.Hit, n)
	docIDs := rq.Lists.DocIDs(s.Passage)
	for i, x := range ranked[:n] {
		hits[i] = backend.Hit{DocID: docIDs[x.Unit], Score: x.Score}
	}
	r.Routing = rp.Routing()
	vals, primary := rp.ScoreRanked(rq, s.Passage, ranked)
	r.Primary = primary
	r.Scores = make(map[string]float64, len(vals))
	for i, name := range rp.Names {
		r.Scores[name] = vals[i]
	}
	scoring.RecordTop(r, rq.Q, hits)
}

// TopGrades returns the grades of the first n results of the ranking rq
// was last scored by (Score), in rank order, -1 for an unjudged one, as
// the recorded top labels them. The slice is valid until the next call.
func (rp *Replayer) TopGrades(rq *Query, n int) []int {
	rp.top = rp.top[:0]
	if rp.byID {
		for _, id := range rp.ids[:min(n, len(rp.ids))] {
			g, ok := rq.Q.Judgments[id]
			if !ok {
				g = -1
			}
			rp.top = append(rp.top, g)
		}
		return rp.top
	}
	for i := range min(n, len(rp.grades)) {
		g := rp.grades[i]
		if !rp.judged[i] {
			g = -1
		}
		rp.top = append(rp.top, g)
	}
	return rp.top
}

// Routing is the Routing of the last ranking, as the engine reports it
// (fusion.Routing): "no_results" when it is empty (every hit was below
// min_score), else "search".
func (rp *Replayer) Routing() string {
	return fusion.Routing(rp.count)
}

// rankingOfIDs drops repeated ids, keeping first occurrences.
func rankingOfIDs(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// LegDepth returns s with the depth its lists are cut at when an external
// engine fuses them for a request of k hits: Weaviate's legs go
// max(QUERY_HYBRID_MAXIMUM_RESULTS, limit) deep (explorer_hybrid.go), so
// under fusion.FormulaWeaviate the depth is at least k. The project's own
// engine cuts at the depth whatever k is.
func LegDepth(s fusion.Settings, k int) fusion.Settings {
	if s.Formula == fusion.FormulaWeaviate && k > s.Fusion.Depth {
		s.Fusion.Depth = k
	}
	return s
}

// Facts are what the statistics need of one replayed trial, made in
// one fusion of each query: its per-query results without top hits or
// labels (Results without hits) and their metric values in one slab
// (Names, Values), the result key of its results with their hits
// (resultKey) and, with judged-only metrics, their judged-only values
// (judgedOnlyOf).
type Facts struct {
	// Results hold each query's primary score, routing and error, but
	// no Scores for the queries answered: their values are in Values
	// (WithScores puts them back).
	Results []runs.QueryResult
	// Names are the metrics of Values (the scorer's, in its order);
	// Values holds every query's values of them, query by query: query
	// i's at Values[i*len(Names) : (i+1)*len(Names)], zeros for a
	// failed query.
	Names  []string
	Values []float64
	Key    string
	Judged map[string]float64 // nil without judged-only metrics
}

// WithScores returns a copy of f.Results with each answered query's
// Scores filled from Values, as the trial's per-query results hold them
// (runs.Run.QueryScores).
func (f Facts) WithScores() []runs.QueryResult {
	out := slices.Clone(f.Results)
	n := len(f.Names)
	for i := range out {
		if out[i].Error != "" {
			continue
		}
		out[i].Scores = make(map[string]float64, n)
		for j, name := range f.Names {
			out[i].Scores[name] = f.Values[i*n+j]
		}
	}
	return out
}

// facts fuses and scores every query under s once and returns what
// results(s, true, policy) would give the statistics — the scores, the
// result key and, for the judgedOnly metric names, the judged-only values
// under judgments and sc — without building the top hits, their labels or
// a second fusion: the bytes hashed and the values summed are the same, in
// the same order.
func (col *Collection) facts(s fusion.Settings, policy string, judgments scoring.Judgments, sc scoring.Scorer, judgedOnly []string) Facts {
	fb := col.NewFacts(NewReplayer(col.Scorer, col.K), s, judgments, sc, judgedOnly)
	for i := range col.Queries {
		fb.Query(i)
	}
	return fb.Done(policy)
}

// FactsBuilder makes a replayed trial's facts (collection.facts) one
// query at a time, in query order: the replay pass makes them beside the
// trial's summary, in the same fusion of each query.
type FactsBuilder struct {
	col   *Collection
	rp    *Replayer
	s     fusion.Settings // LegDepth applied
	jf    *judgedFacts
	jrows []map[string]int // with jf: each query's judgments (Collection.judgmentRows)
	out   []runs.QueryResult
	vals  []float64 // Facts.Values
	h     *KeyHash
	line  []byte
}

// NewFacts starts the facts of col's queries fused under s by rp, with
// the judged-only values of the judgedOnly metrics under judgments and sc.
func (col *Collection) NewFacts(rp *Replayer, s fusion.Settings, judgments scoring.Judgments, sc scoring.Scorer, judgedOnly []string) *FactsBuilder {
	s = LegDepth(s, rp.k)
	fb := &FactsBuilder{col: col, rp: rp, s: s, jf: newJudgedFacts(col, rp, s, sc, judgedOnly),
		out: make([]runs.QueryResult, len(col.Queries)), vals: make([]float64, len(col.Queries)*len(rp.Names)), h: NewKeyHash()}
	if fb.jf != nil {
		fb.jrows = col.judgmentRows(judgments)
	}
	return fb
}

// Query fuses and scores Query i and records its facts. It returns the
// metric values (in the scorer's order, valid until the next call) and
// the primary score, which rp.score would give; rp.routing() is the
// Query's routing. A failed Query records its error and returns nil.
func (fb *FactsBuilder) Query(i int) ([]float64, float64) {
	c := &fb.col.Queries[i]
	q := &c.Q
	// Filled in place, field by field (fb.out is zeroed and each query
	// made once): a QueryResult is large to copy.
	r := &fb.out[i]
	r.QueryID, r.Category, r.Expected, r.RequestID = q.ID, q.Category, q.ExpectedRouting, c.RequestID
	r.Unjudged = len(q.Judgments) == 0
	var ranked []fusion.Ranked
	var vals []float64
	var docIDs []string
	if c.Err != "" {
		r.Error = c.Err
		r.Scores = map[string]float64{}
	} else {
		ranked, vals, r.Primary = fb.rp.rankTop(&c.Query, fb.s)
		r.Routing = fb.rp.Routing()
		copy(fb.vals[i*len(fb.rp.Names):], vals)
		if fb.jf != nil {
			fb.jf.query(i, &c.Query, fb.jrows[i], ranked)
		}
		docIDs = c.Lists.DocIDs(fb.s.Passage)
	}
	// A failed query's key line is the same before and after
	// scoring.MarkQueryErrors: no routing, no top, primary 0.
	fb.line = appendKeyLine(fb.line[:0], q.ID, r.Routing, r.Error, r.Primary)
	if fb.s.Passage || c.at == nil {
		for _, x := range ranked {
			fb.line = append(fb.line, ' ')
			fb.line = appendQuoted(fb.line, docIDs[x.Unit])
		}
	} else {
		fb.line = appendUnits(fb.line, &c.Query, ranked)
	}
	fb.h.Write(append(fb.line, '\n'))
	return vals, r.Primary
}

// Done marks the failed queries under policy (scoring.MarkQueryErrors) and
// returns the facts of every query made.
func (fb *FactsBuilder) Done(policy string) Facts {
	scoring.MarkQueryErrors(fb.out, policy)
	return Facts{Results: fb.out, Names: fb.rp.Names, Values: fb.vals, Key: fb.h.Key(),
		Judged: fb.jf.values(fb.out, fb.jrows)}
}

// rankTop ranks one query of a replayed trial under s (LegDepth applied)
// for facts: it returns the recorded top hits (the first TopRecorded of
// the ranking record gives), the metric values and the primary score as
// scoreRanked gives them over that whole ranking, and sets rp.routing().
// In document mode under the project's formula it scores the units once
// and counts (scoreByRank), then sorts only the best TopRecorded of them,
// instead of ranking the whole cut. The slices are valid until the next
// call.
func (rp *Replayer) rankTop(rq *Query, s fusion.Settings) ([]fusion.Ranked, []float64, float64) {
	if s.Rerank != nil {
		ranked := rp.rankReranked(rq, s, rp.Cut(s.Passage, scoring.TopRecorded))
		vals, primary := rp.ScoreRanked(rq, s.Passage, ranked)
		return ranked[:min(len(ranked), scoring.TopRecorded)], vals, primary
	}
	if rp.fast != nil && !s.Passage && s.Formula == fusion.FormulaOwn {
		n := min(rp.Cut(false, scoring.TopRecorded), scoring.TopRecorded)
		if vals, primary, ok := rp.scoreByRank(rq, s, n); ok {
			// rp.best holds the best n units kept (no NaN): they are
			// the first n of the ranking HitsInto gives, since the
			// order is total. rp.count is already every kept unit.
			return rp.best, vals, primary
		}
	}
	ranked := rp.Rank(rq.Lists, s, rp.Cut(s.Passage, scoring.TopRecorded))
	vals, primary := rp.ScoreRanked(rq, s.Passage, ranked)
	return ranked[:min(len(ranked), scoring.TopRecorded)], vals, primary
}

// judgedFacts computes a replayed trial's judged-only values as
// judgedOnlyOf does from its recorded results: each query's top hits
// condensed to its judged documents, scored, summed per metric in query
// order over the queries judgedOnlyOf counts, then averaged. In document
// mode, scored by sc when sc is (or equals) the collection's scorer and a
// query's judgments are (or equal) the collection's own, the condensed
// ranking is scored by grade (the replay's fast path) instead of by id
// through maps.
type judgedFacts struct {
	names []string
	sc    scoring.Scorer
	fast  *scoring.MetricsScorer // nil: score the condensed ids with sc
	at    []int                  // per name: its index in the scorecard (-1: none)
	s     fusion.Settings
	vals  []float64 // per query and name, the condensed value
	// scratch
	grades []int
	judged []bool
	buf    []float64
	ids    []string
}

func newJudgedFacts(col *Collection, rp *Replayer, s fusion.Settings, sc scoring.Scorer, names []string) *judgedFacts {
	if len(names) == 0 || sc == nil {
		return nil
	}
	jf := &judgedFacts{names: names, sc: sc, s: s, vals: make([]float64, len(col.Queries)*len(names))}
	if ms, ok := sc.(*scoring.MetricsScorer); ok && rp.fast != nil && !s.Passage && (ms == rp.fast || reflect.DeepEqual(ms, rp.fast)) {
		jf.fast = ms
		jf.at = make([]int, len(names))
		for k, name := range names {
			jf.at[k] = -1
			for ci, m := range ms.Card().Metrics { // the last of a name, as Score's map keeps
				if m.String() == name {
					jf.at[k] = ci
				}
			}
		}
	}
	return jf
}

// query records query i's condensed values: its top hits ranked (units
// of rq's lists) under its judgments j.
func (jf *judgedFacts) query(i int, rq *Query, j map[string]int, ranked []fusion.Ranked) {
	if jf == nil || len(j) == 0 {
		return
	}
	row := jf.vals[i*len(jf.names) : (i+1)*len(jf.names)]
	if jf.fast != nil && rq.judged != nil && sameJudgments(j, rq.Q.Judgments) {
		jf.grades, jf.judged = jf.grades[:0], jf.judged[:0]
		for _, x := range ranked {
			if rq.isJudg[x.Unit] {
				jf.grades = append(jf.grades, rq.grade[x.Unit])
				jf.judged = append(jf.judged, true)
			}
		}
		jf.buf = jf.fast.Card().ScoreGrades(jf.buf, jf.grades, jf.judged, rq.judged)
		for k, ci := range jf.at {
			if ci >= 0 {
				row[k] = jf.buf[ci]
			}
		}
		return
	}
	docIDs := rq.Lists.DocIDs(jf.s.Passage)
	jf.ids = jf.ids[:0]
	for _, x := range ranked {
		jf.ids = append(jf.ids, docIDs[x.Unit])
	}
	cond, _ := jf.sc.Score(metrics.Condense(jf.ids, metrics.Judgments(j)), j)
	for k, name := range jf.names {
		row[k] = cond[name]
	}
}

// values sums and averages the condensed values as scoreRecorded does,
// over results as marked (scoring.MarkQueryErrors), each query judged
// by its row of judgments; nil without judged-only metrics.
func (jf *judgedFacts) values(results []runs.QueryResult, judgments []map[string]int) map[string]float64 {
	if jf == nil {
		return nil
	}
	out := make(map[string]float64, len(jf.names))
	for _, m := range jf.names {
		out[m] = 0
	}
	n := 0
	for i, r := range results {
		if len(judgments[i]) == 0 {
			continue
		}
		if r.Error != "" {
			if r.OnError == "zero" {
				n++
			}
			continue
		}
		for k, m := range jf.names {
			out[m] += jf.vals[i*len(jf.names)+k]
		}
		n++
	}
	if n > 0 {
		for m := range out {
			out[m] /= float64(n)
		}
	}
	return out
}

// sameJudgments reports whether a and b judge alike: the same map (the
// sweep's collection shares the golden set's) or equal ones.
func sameJudgments(a, b map[string]int) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() || maps.Equal(a, b)
}

// appendUnits appends to a key line the ids of units of rq's document
// view, each with its space before (Query.quoted): one that fits in 16
// bytes as two 8-byte stores into the line's room, instead of a copy of
// a few bytes.
func appendUnits(b []byte, rq *Query, units []fusion.Ranked) []byte {
	b = slices.Grow(b, 16*len(units))
	for _, x := range units {
		from, to := rq.at[x.Unit], rq.at[x.Unit+1]
		if n := len(b); to-from <= 16 {
			if cap(b)-n < 16 { // a long id took the room
				b = slices.Grow(b, 16)
			}
			w := b[n : n+16]
			binary.LittleEndian.PutUint64(w[:8], rq.short[x.Unit][0])
			binary.LittleEndian.PutUint64(w[8:], rq.short[x.Unit][1])
			b = b[:n+int(to-from)]
		} else {
			b = append(b, rq.quoted[from:to]...)
		}
	}
	return b
}

// appendKeyLine appends the start of resultKeyLine's line: the query id,
// routing and error quoted and the rounded primary score.
func appendKeyLine(b []byte, id, routing, errText string, primary float64) []byte {
	b = appendQuoted(b, id)
	b = append(b, ' ')
	b = appendQuoted(b, routing)
	b = append(b, ' ')
	b = appendQuoted(b, errText)
	b = append(b, ' ')
	return AppendKeyScore(b, primary)
}

// AppendKeyScore appends a result key line's primary score: the eight
// bytes of the score rounded as the leaderboard rounds it (runs.Round,
// which maps NaN, ±Inf and -0 to 0), so two scores the leaderboard writes
// alike, and only those, append the same bytes, without formatting them.
func AppendKeyScore(b []byte, primary float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(runs.Round(primary)))
}

// appendQuoted is strconv.AppendQuote, without its rune-by-rune walk for
// the common case of printable ASCII with nothing to escape.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
