package replay

import (
	"encoding/hex"
	"hash/maphash"
)

// keySeeds are KeyHash's seeds, drawn once per process.
var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// KeyHash is the hash a trial's result key is made of, over the lines
// of its queries (analysis.ResultKey of recorded results, Facts.Key of a
// replay's): 128 bits from two maphashes under seeds drawn once per
// process. Keys are compared only within the process that made them
// (runs.Leaderboard.MarkSameResults) and never written, so a seeded hash
// serves, at a fraction of a cryptographic hash's cost over every query
// of every trial. The zero value is not ready: use NewKeyHash.
type KeyHash struct{ a, b maphash.Hash }

// NewKeyHash returns an empty KeyHash.
func NewKeyHash() *KeyHash {
	h := &KeyHash{}
	h.a.SetSeed(keySeeds[0])
	h.b.SetSeed(keySeeds[1])
	return h
}

// Write adds p to the hash.
func (h *KeyHash) Write(p []byte) {
	h.a.Write(p)
	h.b.Write(p)
}

// Key returns the key of what was written, in hex.
func (h *KeyHash) Key() string {
	var sum [16]byte
	a, b := h.a.Sum64(), h.b.Sum64()
	for i := range 8 {
		sum[i], sum[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	return hex.EncodeToString(sum[:])
}
