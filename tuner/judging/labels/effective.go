package labels

import (
	"cmp"
)

// Provenance counts, for the judgments Effective returns, which source
// supplied each (query, document) pair.
type Provenance struct {
	Gold, Human, LLM, File, Implicit int
}

// Total returns the number of pairs counted.
func (p Provenance) Total() int { return p.Gold + p.Human + p.LLM + p.File + p.Implicit }

func (p *Provenance) count(source string) {
	switch source {
	case SourceGold:
		p.Gold++
	case SourceHuman:
		p.Human++
	case SourceLLM:
		p.LLM++
	case SourceFile:
		p.File++
	case SourceImplicit:
		p.Implicit++
	}
}

// Effective merges labels into the golden set's judgments gold (query id ->
// document id -> grade) and returns the merged judgments, a new map, with
// their provenance. A pair gold judges keeps its gold grade whatever the
// labels say. Among the labels of one pair the most trusted source wins
// (gold > human > file > llm > implicit), then the latest Time, then the
// judge name that sorts first. Labels of another dataset must be left out
// by the caller; labels with an unknown source are ignored.
func Effective(gold map[string]map[string]int, ls []Label) (map[string]map[string]int, Provenance) {
	var prov Provenance
	out := make(map[string]map[string]int, len(gold))
	for q, docs := range gold {
		m := make(map[string]int, len(docs))
		for d, g := range docs {
			m[d] = g
		}
		out[q] = m
		prov.Gold += len(docs)
	}
	type pair struct{ q, d string }
	best := map[pair]Label{}
	for _, l := range ls {
		if rank(l.Source) == len(Sources) {
			continue
		}
		if _, ok := gold[l.Query][l.Doc]; ok {
			continue
		}
		k := pair{l.Query, l.Doc}
		if have, ok := best[k]; !ok || better(l, have) {
			best[k] = l
		}
	}
	for k, l := range best {
		if out[k.q] == nil {
			out[k.q] = map[string]int{}
		}
		out[k.q][k.d] = l.Grade
		prov.count(l.Source)
	}
	return out, prov
}

// Better reports whether label a wins over b for the same pair, by the
// precedence Effective applies: the more trusted source, then the later
// time, then the judge name that sorts first.
func Better(a, b Label) bool { return better(a, b) }

// better reports whether label a wins over b for the same pair.
func better(a, b Label) bool {
	if c := cmp.Compare(rank(a.Source), rank(b.Source)); c != 0 {
		return c < 0
	}
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.Judge < b.Judge
}
