package experiments

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
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
	if math.IsNaN(devFraction) {
		devFraction = 0
	}
	devFraction = min(max(devFraction, 0), 1)
	byCat := map[string][]int{}
	for i, q := range gs.Queries {
		byCat[q.Category] = append(byCat[q.Category], i)
	}
	inDev := make([]bool, len(gs.Queries))
	for _, idx := range byCat {
		keys := make(map[int]uint64, len(idx))
		for _, i := range idx {
			keys[i] = splitKey(seed, gs.Queries[i].ID)
		}
		sort.Slice(idx, func(a, b int) bool {
			ka, kb := keys[idx[a]], keys[idx[b]]
			if ka != kb {
				return ka < kb
			}
			return gs.Queries[idx[a]].ID < gs.Queries[idx[b]].ID
		})
		n := int(math.Round(devFraction * float64(len(idx))))
		for _, i := range idx[:n] {
			inDev[i] = true
		}
	}
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
	return &GoldenSet{Categories: gs.Categories, Source: gs.Source, Hash: gs.Hash, Part: name, Warnings: gs.Warnings}
}

// splitKey hashes (seed, id) with FNV-1a, then mixes the bits (the
// SplitMix64 finalizer) so that nearby seeds give unrelated orders.
func splitKey(seed int64, id string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	h.Write([]byte(id))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
