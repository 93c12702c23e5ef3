package fusion

import (
	"fmt"
	"sort"
)

// Formulas a Settings can name: whose fusion formula Fuser applies.
const (
	// FormulaOwn is the project's own engine's fusion (Fuse): the default.
	FormulaOwn = ""
	// FormulaWeaviate is Weaviate's hybrid fusion (WeaviateHybrid) over
	// the lists "dense" (1 - distance) and "bm25": Fusion.Method rrf is
	// rankedFusion, linear relativeScoreFusion (min-max per leg, whatever
	// Fusion.Normalization says), and alpha is Weight("dense") /
	// (Weight("bm25") + Weight("dense")). Fusion.K is not read (Weaviate
	// fixes it), nor are Floors, MinScore and Passage (the weaviate kind
	// accepts none of them). Weaviate's legs go max(depth, hits asked)
	// deep: a caller fusing for k hits sets Fusion.Depth to at least k.
	FormulaWeaviate = "weaviate"
	// FormulaLanceDB is LanceDB's hybrid query with its RRF reranker
	// (LanceDBRRF) over the lists "dense" (the vector leg) and "bm25" (the
	// full-text leg), Candidate.ID the row id: Fusion.K is the reranker's
	// k and Fusion.Depth the query's limit (both legs go that deep and the
	// answer is cut there). Method, Weights, Floors, MinScore and Passage
	// are not read (LanceDBExpresses tells which settings it expresses).
	FormulaLanceDB = "lancedb"
)

// WeaviateAlpha returns the alpha of a Weaviate hybrid query fused under
// p: the dense weight over the sum of both (p.Weight: 1 when unset).
// Weights {bm25: 1 - a, dense: a} give back a exactly for every a in
// [0, 1], since (1 - a) + a rounds to 1.
func WeaviateAlpha(p Params) float64 {
	wd, wb := p.Weight("dense"), p.Weight("bm25")
	if wd+wb == 0 {
		return 0
	}
	return wd / (wb + wd)
}

// WeaviateFusionType returns the Weaviate fusionType of method: rrf is
// rankedFusion, linear relativeScoreFusion.
func WeaviateFusionType(m Method) (string, error) {
	switch m {
	case RRF:
		return WeaviateRankedFusion, nil
	case Linear:
		return WeaviateRelativeScoreFusion, nil
	}
	return "", fmt.Errorf("fusion: weaviate: method %q has no Weaviate fusionType (rrf is rankedFusion, linear relativeScoreFusion)", m)
}

// weaviateInto appends the best n (all when n < 0) document units of pl
// fused by WeaviateHybrid under s to dst[:0], in Weaviate's order, each
// list cut at s.Fusion.Depth first. Candidate ids (Weaviate's UUIDs, its
// last tie-breaker) come from the passage view; every document must have
// one object (the weaviate kind loads one per document).
func (f *Fuser) weaviateInto(dst []Ranked, pl *Prepared, s Settings) []Ranked {
	p := s.Fusion.WithDefaults()
	ft, err := WeaviateFusionType(p.Method)
	if err != nil {
		panic(err.Error())
	}
	legs := pl.legs(p.Depth)
	docs := pl.document.docIDs
	dst = dst[:0]
	for _, r := range WeaviateHybrid(ft, WeaviateAlpha(p), legs["dense"], legs["bm25"]) {
		u := sort.SearchStrings(docs, r.DocID)
		dst = append(dst, Ranked{Score: r.Score, Unit: int32(u)})
	}
	return dst
}

// legs returns the lists "dense" and "bm25" of the passage view (ID the
// candidate id, the engine's object or row id), each cut at depth: the
// legs an external engine's formula fuses.
func (pl *Prepared) legs(depth int) map[string][]Candidate {
	legs := map[string][]Candidate{}
	v := &pl.passage
	for r, name := range pl.names {
		if name != "dense" && name != "bm25" {
			continue
		}
		es := v.lists[r][:v.cut(r, depth)]
		list := make([]Candidate, len(es))
		for i, e := range es {
			list[i] = Candidate{ID: v.ids[e.unit], DocID: v.docIDs[e.unit], Score: e.score}
		}
		legs[name] = list
	}
	return legs
}
