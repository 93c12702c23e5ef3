package fusion

import (
	"slices"
	"sort"
	"strings"
)

// Prepared is a set of candidate lists interned for repeated fusion: ids
// become small integers, retrievers are ordered by name and the document
// view (chunks collapsed to their documents) is computed once. The tuner's
// replay prepares each query's lists once and fuses them under many Params
// with a Fuser. A Prepared is immutable and safe for concurrent use.
type Prepared struct {
	names    []string // retriever names, sorted
	passage  view     // units are chunk ids
	document view     // units are document ids
	whole    bool     // every candidate is its own document
}

// view is the lists of one mode with ids interned as units.
type view struct {
	ids    []string  // unit ids in (document id, id) order; a unit is an index into ids
	docIDs []string  // document id of each unit
	lists  [][]entry // per retriever (in names order): kept entries in rank order
	// pos[r][i] is the 0-based position in the original list r of kept
	// entry i; nil when list r dropped nothing (pos[r][i] == i).
	pos [][]int32
}

// entry is one kept candidate of a list.
type entry struct {
	unit  int32
	score float64
}

// Prepare interns lists. The order of each list is its ranking (rank 1
// first); Candidate.Rank is not consulted. A candidate with an empty DocID
// is its own document (DocID = ID). Within one list a repeated chunk id
// keeps its first occurrence; in the document view, the first chunk of a
// document keeps its position and score and later chunks are dropped.
func Prepare(lists map[string][]Candidate) *Prepared {
	pl := &Prepared{names: make([]string, 0, len(lists))}
	for name := range lists {
		pl.names = append(pl.names, name)
	}
	sort.Strings(pl.names)
	ordered := make([][]Candidate, len(pl.names))
	for i, name := range pl.names {
		ordered[i] = lists[name]
	}
	pl.passage = buildView(ordered, func(c *Candidate) string { return c.ID }, docOf)
	if pl.whole = wholeDocuments(ordered); pl.whole {
		// Each unit's key is its document either way: the document view
		// is the passage view (both are read only).
		pl.document = pl.passage
	} else {
		pl.document = buildView(ordered, docOf, docOf)
	}
	return pl
}

// wholeDocuments reports whether every candidate is its own document
// (DocID empty or equal to ID), as an engine's lists are when it indexes
// whole documents.
func wholeDocuments(lists [][]Candidate) bool {
	for _, list := range lists {
		for i := range list {
			if c := &list[i]; c.DocID != "" && c.DocID != c.ID {
				return false
			}
		}
	}
	return true
}

// WholeDocuments reports whether every candidate is its own document
// (DocID empty or equal to ID): then a unit of either view is a document
// and its only chunk.
func (pl *Prepared) WholeDocuments() bool { return pl.whole }

// Retrievers returns the retriever names in fusion order (sorted).
func (pl *Prepared) Retrievers() []string { return pl.names }

// IDs returns the id of every unit of the passage (chunk ids) or document
// view, ordered by document id, then id (in the document view: ascending
// ids): unit u is IDs(passage)[u]. Do not modify it.
func (pl *Prepared) IDs(passage bool) []string {
	if passage {
		return pl.passage.ids
	}
	return pl.document.ids
}

// DocIDs returns the document id of every unit of the passage or document
// view, indexed like IDs. Do not modify it.
func (pl *Prepared) DocIDs(passage bool) []string {
	if passage {
		return pl.passage.docIDs
	}
	return pl.document.docIDs
}

func docOf(c *Candidate) string {
	if c.DocID == "" {
		return c.ID
	}
	return c.DocID
}

// buildView interns the units named by key, keeping the first occurrence of
// each unit per list.
func buildView(lists [][]Candidate, key, doc func(*Candidate) string) view {
	total := 0
	for _, list := range lists {
		total += len(list)
	}
	// Sized for every candidate a distinct unit: no map or slice grows.
	index := make(map[string]int32, total)
	ids, docIDs := make([]string, 0, total), make([]string, 0, total)
	v := view{lists: make([][]entry, len(lists)), pos: make([][]int32, len(lists))}
	seenIn := make([]int, 0, total) // seenIn[u] is 1 + the last list holding unit u
	for r, list := range lists {
		kept := make([]entry, 0, len(list))
		var pos []int32
		for i := range list {
			c := &list[i]
			id := key(c)
			u, ok := index[id]
			if !ok {
				u = int32(len(ids))
				index[id] = u
				ids = append(ids, id)
				docIDs = append(docIDs, doc(c))
				seenIn = append(seenIn, 0)
			}
			if seenIn[u] == r+1 {
				if pos == nil {
					pos = make([]int32, len(kept), len(list))
					for j := range pos {
						pos[j] = int32(j)
					}
				}
				continue
			}
			seenIn[u] = r + 1
			kept = append(kept, entry{unit: u, score: c.Score})
			if pos != nil {
				pos = append(pos, int32(i))
			}
		}
		v.lists[r] = kept
		v.pos[r] = pos
	}
	v.renumber(ids, docIDs)
	return v
}

// renumber sets v's units, numbered so far in order of first appearance
// with ids and docIDs, in (document id, id) order so that ties break by
// comparing units (TieRule): in the document view that is id order; in
// the passage view chunks tie by their document's id first, so the
// documents of a passage ranking tie as a run file of them does.
func (v *view) renumber(ids, docIDs []string) {
	order := make([]int32, len(ids))
	for i := range order {
		order[i] = int32(i)
	}
	// Units are distinct ids, so the order is total and any sort gives it.
	slices.SortFunc(order, func(x, y int32) int {
		if c := strings.Compare(docIDs[x], docIDs[y]); c != 0 {
			return c
		}
		return strings.Compare(ids[x], ids[y])
	})
	remap := make([]int32, len(ids))
	v.ids = make([]string, len(ids))
	v.docIDs = make([]string, len(ids))
	for newU, oldU := range order {
		remap[oldU] = int32(newU)
		v.ids[newU] = ids[oldU]
		v.docIDs[newU] = docIDs[oldU]
	}
	for _, kept := range v.lists {
		for i := range kept {
			kept[i].unit = remap[kept[i].unit]
		}
	}
}

// cut returns how many kept entries of list r come from the first depth
// candidates of the original list.
func (v *view) cut(r, depth int) int {
	pos := v.pos[r]
	if pos == nil {
		return min(depth, len(v.lists[r]))
	}
	return sort.Search(len(pos), func(i int) bool { return int(pos[i]) >= depth })
}
