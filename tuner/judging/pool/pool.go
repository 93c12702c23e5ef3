package pool

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
)

// DefaultDepth is the ranks of each ranking a pool takes by default.
const DefaultDepth = 10

// MaxDepth is the deepest pool: the runs record the top 20 of each query
// (scoring.TopRecorded); a retriever's list may be deeper.
const MaxDepth = 1000

// Ranking is one source's ranked documents for one query: a trial's
// results or a retriever's own candidate list.
type Ranking struct {
	// Source names the ranking's producer (a trial's name, or
	// "retriever:NAME"); pairs count their distinct sources.
	Source string
	Query  string
	// Docs are document ids, best first; a repeated id keeps its first
	// rank.
	Docs []string
}

// Judged reports whether a (query, document) pair has a judgment (any
// grade, 0 included).
type Judged func(query, doc string) bool

// Pair is one unjudged (query, document) pair of a pool: a line of the pool
// JSONL file.
type Pair struct {
	Dataset string `json:"dataset"`
	Query   string `json:"query"`
	Doc     string `json:"doc"`
	// Priority is the sum of 1/rank over the sources holding the pair.
	Priority float64 `json:"priority"`
	// Trials is how many sources hold the pair in their top Depth.
	Trials int `json:"trials"`
	// BestRank is its best (lowest) rank among them.
	BestRank int `json:"best_rank"`
}

// Stats describes a pool.
type Stats struct {
	Pairs int `json:"pairs"`
	// Queries is the queries with at least one ranking; PerQuery the
	// minimum, median and maximum number of pairs over them.
	Queries        int     `json:"queries"`
	PerQueryMin    int     `json:"per_query_min"`
	PerQueryMedian float64 `json:"per_query_median"`
	PerQueryMax    int     `json:"per_query_max"`
	// Sources is the rankings' distinct sources.
	Sources int `json:"sources"`
	// K is the depth the coverage is measured at (the pool's depth).
	K int `json:"k"`
	// JudgedNow is Judged@K averaged over every ranking (the share of its
	// top K that is judged, divided by K as metrics.Judged does);
	// JudgedIfAll is the same once every pair of the pool is judged.
	JudgedNow   float64 `json:"judged_now"`
	JudgedIfAll float64 `json:"judged_if_all"`
}

// Pool is a pool's pairs, best first, and its statistics.
type Pool struct {
	Pairs []Pair `json:"pairs"`
	Stats Stats  `json:"stats"`
}

// Build pools the top depth of rankings: every pair judged reports false
// for, deduplicated, ordered by priority (see the package doc). dataset
// fills each pair's Dataset. depth must be in 1..MaxDepth.
func Build(dataset string, rankings []Ranking, judged Judged, depth int) (*Pool, error) {
	if depth < 1 || depth > MaxDepth {
		return nil, fmt.Errorf("pool: depth must be in 1..%d (got %d)", MaxDepth, depth)
	}
	pairs := map[pairKey]*pairAcc{}
	queries := map[string]bool{}
	sources := map[string]bool{}
	var now, after float64
	for _, r := range rankings {
		queries[r.Query] = true
		sources[r.Source] = true
		judgedTop, top := addRanking(pairs, r, judged, depth)
		now += float64(judgedTop) / float64(depth)
		after += float64(top) / float64(depth)
	}
	p := &Pool{Pairs: make([]Pair, 0, len(pairs))}
	perQuery := map[string]int{}
	for k, a := range pairs {
		p.Pairs = append(p.Pairs, Pair{Dataset: dataset, Query: k.q, Doc: k.d, Priority: round(a.prio), Trials: len(a.sources), BestRank: a.best})
		perQuery[k.q]++
	}
	slices.SortFunc(p.Pairs, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(b.Trials, a.Trials), cmp.Compare(a.BestRank, b.BestRank),
			cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc))
	})
	s := Stats{Pairs: len(p.Pairs), Queries: len(queries), Sources: len(sources), K: depth}
	if len(rankings) > 0 {
		s.JudgedNow = round(now / float64(len(rankings)))
		s.JudgedIfAll = round(after / float64(len(rankings)))
	}
	counts := make([]int, 0, len(queries))
	for q := range queries {
		counts = append(counts, perQuery[q])
	}
	s.PerQueryMin, s.PerQueryMax, s.PerQueryMedian = spread(counts)
	p.Stats = s
	return p, nil
}

// pairKey names a (query, document) pair.
type pairKey struct{ q, d string }

// pairAcc is what the rankings pooled so far say of one unjudged pair:
// its priority, the sources that ranked it and its best rank.
type pairAcc struct {
	prio    float64
	sources map[string]bool
	best    int
}

// addRanking pools the top depth distinct documents of r into pairs: each
// unjudged one gains 1/rank of priority once per source, and keeps its
// best rank. It returns how many of those top documents are judged, and
// how many there are (depth, or fewer for a shorter ranking).
func addRanking(pairs map[pairKey]*pairAcc, r Ranking, judged Judged, depth int) (judgedTop, top int) {
	seen := make(map[string]bool, depth)
	for _, d := range r.Docs {
		if top == depth {
			break
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		top++
		if judged(r.Query, d) {
			judgedTop++
			continue
		}
		k := pairKey{r.Query, d}
		a := pairs[k]
		if a == nil {
			a = &pairAcc{sources: map[string]bool{}, best: top}
			pairs[k] = a
		}
		if !a.sources[r.Source] {
			a.sources[r.Source] = true
			a.prio += 1 / float64(top)
		}
		a.best = min(a.best, top)
	}
	return judgedTop, top
}

// spread is the smallest, the largest and the median of counts (sorted in
// place); zeros for no counts.
func spread(counts []int) (lo, hi int, median float64) {
	n := len(counts)
	if n == 0 {
		return 0, 0, 0
	}
	sort.Ints(counts)
	if n%2 == 1 {
		median = float64(counts[n/2])
	} else {
		median = float64(counts[n/2-1]+counts[n/2]) / 2
	}
	return counts[0], counts[n-1], median
}

// Take returns the first n pairs (all when n <= 0 or n is larger).
func (p *Pool) Take(n int) []Pair {
	if n <= 0 || n >= len(p.Pairs) {
		return p.Pairs
	}
	return p.Pairs[:n]
}

// WriteJSONL writes the pairs, one JSON object a line, in pool order.
func WriteJSONL(w io.Writer, pairs []Pair) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, pr := range pairs {
		if err := enc.Encode(pr); err != nil {
			return fmt.Errorf("pool: write: %w", err)
		}
	}
	return nil
}

// WriteStats writes s as the text lines `tune judge pool` prints.
func WriteStats(w io.Writer, s Stats) error {
	_, err := fmt.Fprintf(w, "pool: %d unjudged pairs over %d queries from %d sources (top %d)\n"+
		"pairs per query: min %d, median %g, max %d\n"+
		"Judged@%d: %.4f now, %.4f if all were judged\n",
		s.Pairs, s.Queries, s.Sources, s.K, s.PerQueryMin, s.PerQueryMedian, s.PerQueryMax, s.K, s.JudgedNow, s.JudgedIfAll)
	return err
}

// round keeps 6 decimals so that the JSON is stable across platforms.
func round(x float64) float64 {
	const f = 1e6
	if x < 0 {
		return -float64(int64(-x*f+0.5)) / f
	}
	return float64(int64(x*f+0.5)) / f
}
