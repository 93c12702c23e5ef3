package experiments

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"

	"github.com/fusiontune/fusiontune/internal/hashmix"
)

// Split names accepted by Subset.
const (
	SplitDev  = "dev"
	SplitTest = "test"
	SplitAll  = "all"
)

// Split divides gs into a dev set (to tune on) and a test set (held out),
// stratified by category: within each category, queries are ordered by a
// hash of (seed, query id) and the first round(devFraction × n) go to dev.
// The result depends only on the seed, the fraction and the set of query
// ids and categories, not on their order in the file; both halves keep file
// order. devFraction is clamped to [0, 1] (NaN reads as 0). The halves share
// Categories, Source, Hash and Warnings with gs and copy its queries.
func (gs *GoldenSet) Split(seed int64, devFraction float64) (dev, test *GoldenSet) {
	ids := make([]string, len(gs.Queries))
	cats := make([]string, len(gs.Queries))
	for i, q := range gs.Queries {
		ids[i], cats[i] = q.ID, q.Category
	}
	inDev := StratifiedSample(seed, ids, cats, devFraction)
	dev, test = gs.subset(SplitDev), gs.subset(SplitTest)
	for i, q := range gs.Queries {
		q.Judgments = append([]Judgment(nil), q.Judgments...)
		if inDev[i] {
			dev.Queries = append(dev.Queries, q)
		} else {
			test.Queries = append(test.Queries, q)
		}
	}
	return dev, test
}

// StratifiedSample picks round(fraction × n) items of every category
// (categories[i] is item i's): within a category, items are ordered by a
// hash of (seed, id), ties by id, and the first ones are taken. The choice
// depends only on the seed and the (id, category) pairs, not on their
// order, and samples are nested: a larger fraction keeps every item of a
// smaller one. fraction is clamped to [0, 1] (NaN reads as 0).
func StratifiedSample(seed int64, ids, categories []string, fraction float64) []bool {
	if math.IsNaN(fraction) {
		fraction = 0
	}
	fraction = min(max(fraction, 0), 1)
	byCat := map[string][]int{}
	for i := range ids {
		byCat[categories[i]] = append(byCat[categories[i]], i)
	}
	in := make([]bool, len(ids))
	for _, idx := range byCat {
		keys := make(map[int]uint64, len(idx))
		for _, i := range idx {
			keys[i] = splitKey(seed, ids[i])
		}
		sort.Slice(idx, func(a, b int) bool {
			ka, kb := keys[idx[a]], keys[idx[b]]
			if ka != kb {
				return ka < kb
			}
			return ids[idx[a]] < ids[idx[b]]
		})
		n := int(math.Round(fraction * float64(len(idx))))
		for _, i := range idx[:n] {
			in[i] = true
		}
	}
	return in
}

// Subset returns the named part of gs: SplitDev or SplitTest from
// Split(seed, devFraction), or gs itself for SplitAll or "".
func (gs *GoldenSet) Subset(name string, seed int64, devFraction float64) (*GoldenSet, error) {
	switch name {
	case SplitAll, "":
		return gs, nil
	case SplitDev, SplitTest:
		dev, test := gs.Split(seed, devFraction)
		if name == SplitDev {
			return dev, nil
		}
		return test, nil
	}
	return nil, fmt.Errorf("golden set split: unknown split %q (expected dev, test or all)", name)
}

func (gs *GoldenSet) subset(name string) *GoldenSet {
	return &GoldenSet{Categories: gs.Categories, Source: gs.Source, Hash: gs.Hash, Part: name, Warnings: gs.Warnings, Scale: gs.Scale, raw: gs.raw}
}

// splitKey hashes (seed, id) with FNV-1a, then mixes the bits (the
// SplitMix64 finalizer) so that nearby seeds give unrelated orders.
func splitKey(seed int64, id string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(id))
	return hashmix.Finalize(h.Sum64())
}
