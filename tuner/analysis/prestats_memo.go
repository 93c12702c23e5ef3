package analysis

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"sync"
)

// statsMemo shares a statistic among the trials that compute it from the
// same inputs, bit for bit: trials whose per-query scores are the same
// (RRF's k has no effect on a ranking when one retriever is weighted 0,
// say) are tested and resampled once. The statistics are functions of
// their inputs (values, seed, thresholds), so a shared result is the one
// each would have computed.
type statsMemo struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// do returns f's result for inputs key, computed once however many ask;
// an error is not shared (each asker whose f fails returns its own).
func (s *statsMemo) do(key [sha256.Size]byte, f func() (any, error)) (any, error) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[[sha256.Size]byte]*memoEntry{}
	}
	e := s.m[key]
	if e == nil {
		e = &memoEntry{}
		s.m[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	if e.err != nil {
		return f()
	}
	return e.v, nil
}

// memoKey hashes what names a computation (its kind, metric or category,
// seed) and its inputs: each slice's length, then its values' bits.
func memoKey(what string, seed int64, vals ...[]float64) [sha256.Size]byte {
	b := make([]byte, 0, 64+len(what)+8*len(vals[0])*len(vals))
	b = binary.AppendUvarint(b, uint64(len(what)))
	b = append(b, what...)
	b = binary.LittleEndian.AppendUint64(b, uint64(seed))
	for _, v := range vals {
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return sha256.Sum256(b)
}

// categoriesKey is memoKey for a trial's per-category values (in
// category order).
func categoriesKey(by map[string][]float64) [sha256.Size]byte {
	cats := slices.Sorted(maps.Keys(by))
	h := sha256.New()
	for _, cat := range cats {
		k := memoKey(cat, 0, by[cat])
		h.Write(k[:])
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
