package fusion

import "fmt"

// Result is one entry of a fused ranking. In document mode ID equals DocID.
type Result struct {
	ID    string  `json:"id"`
	DocID string  `json:"doc_id"`
	Score float64 `json:"score"`
}

// Fuse merges the ranked candidate lists (retriever name -> list, best
// first: the slice order is the ranking, Candidate.Rank is not consulted;
// an empty DocID means the candidate is its own document) into one ranking under p (defaults applied, see
// Params.WithDefaults). Per list: keep the first p.Depth candidates; in
// document mode (passage false) collapse chunks to their documents (the
// first chunk of a document takes its rank and score, later ones are
// dropped); then fuse:
//
//   - rrf: sum over lists of w_r / (k + rank), rank 1-based after collapsing.
//   - linear: sum over lists of w_r * normalized score.
//   - combsum: sum over lists of normalized score.
//   - combmnz: combsum times the number of lists holding the item.
//
// An item missing from a list gets nothing from it. w_r is p.Weight(r): 1
// when unset; a weight of 0 switches retriever r off for every method
// (combsum and combmnz ignore other weight values). Lists are visited in
// sorted name order, so sums are bit-for-bit reproducible. The result is
// sorted by score descending, ties by document id descending, then ID
// descending (the tie rule: see the package doc; a NaN score, which only
// non-finite inputs produce, ranks last).
//
// Fuse panics on an unknown method or normalization: call Params.Validate
// first. For repeated fusion of the same lists use Prepare and a Fuser.
func Fuse(lists map[string][]Candidate, p Params, passage bool) []Result {
	var f Fuser
	return f.FuseInto(nil, Prepare(lists), p, passage)
}

// Fuser fuses prepared lists with reusable scratch buffers, so that its
// methods allocate nothing once warm (given a dst with capacity). A Fuser
// is not safe for concurrent use: give each goroutine its own. The zero
// value is ready to use.
type Fuser struct {
	score  []float64
	count  []int32
	raw    []float64
	norm   []float64
	ranked []Ranked
	keys   []keyed  // sortTop's scratch
	moved  []Ranked // sortTop's copy of the entries it moves
	// guess is a score the best few entries of the next sortTop likely
	// reach (guessTop), when guessed; at is guessTop's scratch.
	guess   float64
	guessed bool
	at      []int32
	sorted  []keyed    // bucketSort's output
	rrf     []rrfTerms // per list: its RRF terms (rrfTerms)
}

// FuseInto is Fuse over prepared lists, appending the ranking to dst[:0]
// and returning it. It ranks exactly as Fuse does.
func (f *Fuser) FuseInto(dst []Result, pl *Prepared, p Params, passage bool) []Result {
	return f.FuseTopInto(dst, pl, p, passage, -1)
}

// FuseTopInto is FuseInto keeping only the best n results (all of them
// when n < 0). The kept results and their order are those of the full
// ranking's first n.
func (f *Fuser) FuseTopInto(dst []Result, pl *Prepared, p Params, passage bool, n int) []Result {
	f.ranked = f.RankInto(f.ranked, pl, p, passage, n)
	ids, docIDs := pl.IDs(passage), pl.DocIDs(passage)
	dst = dst[:0]
	for _, r := range f.ranked {
		dst = append(dst, Result{ID: ids[r.Unit], DocID: docIDs[r.Unit], Score: r.Score})
	}
	return dst
}

// RankInto is FuseTopInto without the strings: it appends the best n
// units (all when n < 0) to dst[:0], best first. A unit indexes
// pl.IDs(passage) and pl.DocIDs(passage); units are numbered in
// (document id, id) order.
// Callers that score many configs per query (the tuner's replay) map
// judgments to units once per query and avoid string work per config.
func (f *Fuser) RankInto(dst []Ranked, pl *Prepared, p Params, passage bool, n int) []Ranked {
	return f.rankInto(dst, pl, p, passage, n, nil)
}

// rankInto is RankInto with each list cut at its retriever's floor.
func (f *Fuser) rankInto(dst []Ranked, pl *Prepared, p Params, passage bool, n int, floors map[string]float64) []Ranked {
	dst = f.scoreInto(dst, pl, p, passage, floors)
	f.sortTop(dst, n)
	if n >= 0 && n < len(dst) {
		dst = dst[:n]
	}
	return dst
}

// ScoreInto is RankInto without the ranking: it appends every fused unit
// with its score to dst[:0], in unit order. Ranked.Before orders them as
// RankInto would; a caller that needs only a few units' ranks can count
// instead of sorting.
func (f *Fuser) ScoreInto(dst []Ranked, pl *Prepared, p Params, passage bool) []Ranked {
	return f.scoreInto(dst, pl, p, passage, nil)
}

// scoreInto is ScoreInto with each list, after the depth cut, cut at its
// first entry scoring below its retriever's floor (Settings.Floors).
func (f *Fuser) scoreInto(dst []Ranked, pl *Prepared, p Params, passage bool, floors map[string]float64) []Ranked {
	p = p.WithDefaults()
	v := &pl.document
	if passage {
		v = &pl.passage
	}
	units := len(v.ids)
	f.score = grow(f.score, units)
	f.count = grow(f.count, units)
	clear(f.score)
	clear(f.count)
	for r, list := range v.lists {
		w := p.Weight(pl.names[r])
		if w == 0 {
			continue
		}
		es := list[:v.cut(r, p.Depth)]
		if floor, ok := floors[pl.names[r]]; ok {
			es = es[:floorCut(es, floor)]
		}
		switch p.Method {
		case RRF:
			t := f.rrfTerms(r, w, p.K, len(es))
			for i, e := range es {
				f.score[e.unit] += t[i]
				f.count[e.unit]++
			}
			continue
		case Linear:
		case CombSUM, CombMNZ:
			w = 1
		default:
			panic(fmt.Sprintf("fusion: unknown method %q", p.Method))
		}
		f.raw = grow(f.raw, len(es))
		for i, e := range es {
			f.raw[i] = e.score
		}
		f.norm = Normalize(f.norm, f.raw, p.Normalization)
		for i, e := range es {
			f.score[e.unit] += w * f.norm[i]
			f.count[e.unit]++
		}
	}
	dst = dst[:0]
	mnz := p.Method == CombMNZ
	for u, c := range f.count {
		if c == 0 {
			continue
		}
		s := f.score[u]
		if mnz {
			s *= float64(c)
		}
		dst = append(dst, Ranked{Score: s, Unit: int32(u)})
	}
	return dst
}

// rrfTerms returns the RRF terms w / (k + rank) of ranks 1 to n of list
// r, computed once for as long as the list's weight and k stay (the
// replay fuses every query under one config in turn): the same values,
// without a division per entry.
func (f *Fuser) rrfTerms(r int, w, k float64, n int) []float64 {
	if r >= len(f.rrf) {
		f.rrf = append(f.rrf, make([]rrfTerms, r+1-len(f.rrf))...)
	}
	t := &f.rrf[r]
	if t.w != w || t.k != k { // a NaN never matches: computed anew
		t.w, t.k, t.terms = w, k, t.terms[:0]
	}
	for i := len(t.terms); i < n; i++ {
		t.terms = append(t.terms, w/(k+float64(i+1)))
	}
	return t.terms[:n]
}

// rrfTerms are the terms of one list under one weight and k.
type rrfTerms struct {
	w, k  float64
	terms []float64
}

// floorCut returns the position of the first entry scoring below floor
// (len(es) when none does): the entries a retriever's floor keeps.
func floorCut(es []entry, floor float64) int {
	for i, e := range es {
		if e.score < floor {
			return i
		}
	}
	return len(es)
}
