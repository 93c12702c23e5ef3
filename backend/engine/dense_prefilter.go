package engine

import (
	"math"
	"unsafe"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// The dense prefilter: a search reads an int8 copy of the index (a
// quarter of the float32 rows' bytes, the scan's real cost) to bound
// every row's similarity, then computes the exact similarity (the same
// kernel, bit for bit) only of the rows whose bound can still reach the
// top depth. The ranking is the full scan's, scores and order, by a proof
// rather than a tolerance:
//
// Row r is stored as s_r*k (k int8, s_r = max|r_i|/127) and the query q
// as s_q*m (m int16); K = k·m is an exact integer. With the quantization
// errors d = r - s_r*k and e = q - s_q*m,
//
//	r·q = s_r*s_q*K + d·(s_q*m) + r·e,
//
// so |r·q - s_r*s_q*K| <= |d|*|s_q*m| + max|e|*Σ|r| (Cauchy-Schwarz and
// Hölder), and the float32 kernel's result differs from r·q by at most
// gamma*Σ|r_i*q_i| <= gamma*|r|*|q| (gamma: the float32 rounding bound of
// a dim-term dot product, taken for dim+8 roundings). The terms but the
// first are tiny: the index keeps their largest Σ|r| and |r|. So each row's exact
// similarity lies in [lo_r, hi_r]. If L is the depth-th largest lo, at
// least depth rows score >= L, so a row with hi_r < L scores below
// depth rows and is not in the top depth: the top depth of the rows with
// hi_r >= L, ranked by their exact similarities under the same total
// order (rankedBefore), is the full scan's top depth.

// prefilterMinRows is the least number of rows an index needs for the
// prefilter: below it the full scan is as cheap.
const prefilterMinRows = 1024

// prefilterQueryMax bounds the query's int16 values: at most 32767, and
// small enough that no row's integer sum leaves int32.
func prefilterQueryMax(dim int) int {
	return min(32767, (math.MaxInt32-1)/(127*dim))
}

// prefilter is the int8 copy of an index and each row's error terms.
type prefilter struct {
	rows []int8 // row i is scale[i] * rows[i*dim:(i+1)*dim] up to the errors
	// Per row: the scale s_r and |d| (d = row - s_r*k).
	scale, errNorm []float64
	// The largest Σ|r_i| and |r| of a row.
	maxAbs1, maxNorm float64
}

// newPrefilter quantizes data (rows of dim values) for the prefilter, or
// returns nil when the prefilter does not apply: no kernel, a dimension
// the exact kernel does not take, too few rows, a value that is not
// finite, or a dimension too large for the int32 sums.
func newPrefilter(data []float32, dim int) *prefilter {
	if !prefilterKernel || dim == 0 || dim%16 != 0 || prefilterQueryMax(dim) < 1024 {
		return nil
	}
	n := len(data) / dim
	if n < prefilterMinRows {
		return nil
	}
	p := &prefilter{rows: make([]int8, n*dim), scale: make([]float64, n), errNorm: make([]float64, n)}
	for i := range n {
		row := data[i*dim : (i+1)*dim]
		var mx, a1, n2 float64
		for _, x := range row {
			f := float64(x)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil
			}
			mx = max(mx, math.Abs(f))
			a1 += math.Abs(f)
			n2 += f * f
		}
		p.maxAbs1, p.maxNorm = max(p.maxAbs1, a1), max(p.maxNorm, math.Sqrt(n2))
		if mx == 0 {
			continue // a zero row: k = 0, no error
		}
		// Any rounding to integers will do (the errors are measured):
		// the nearest, by a multiplication and math.Floor (one
		// instruction where the CPU has it).
		s, inv := mx/127, 127/mx
		k := p.rows[i*dim : (i+1)*dim]
		var e2 float64
		for j, x := range row {
			v := max(-127, min(127, math.Floor(float64(x)*inv+0.5)))
			k[j] = int8(v)
			d := float64(x) - s*v
			e2 += d * d
		}
		p.scale[i], p.errNorm[i] = s, math.Sqrt(e2)
	}
	return p
}

// prefilterBuf is a search's prefilter scratch (in searchBuf).
type prefilterBuf struct {
	qi   []int16
	ints []int32
	hi   []float64
	bins [loBins]int32 // a histogram of the rows' lower bounds
	rows []int32
}

// The histogram of lower bounds: loBins bins over [loBase, loBase+loRange)
// (a similarity of unit vectors is within [-1, 1]; lower bounds outside
// the range count in the first or last bin).
const (
	loBins  = 2048
	loBase  = -1.25
	loRange = 2.5
)

// floor returns a value at most the depth-th largest lower bound counted
// in the bins: the lower edge of the bin below the one where the count
// from the top reaches depth (a bin's own edge could be off by a rounding
// of the bin index), or -Inf when that is the first bin.
func (b *prefilterBuf) floor(depth int) float64 {
	var count int32
	j := loBins - 1
	for ; j > 0; j-- {
		if count += b.bins[j]; count >= int32(depth) {
			break
		}
	}
	if j < 2 {
		return math.Inf(-1)
	}
	return loBase + float64(j-1)*(loRange/loBins)
}

// queryQuant is the query's int16 copy and its error terms.
type queryQuant struct {
	scale  float64 // q ≈ scale * m
	errMax float64 // max|e|
	normM  float64 // |scale*m|
	norm   float64 // |q|
}

// quantizeQuery fills qi with the query's int16 copy; false when the
// query has a value that is not finite or is zero (the full scan ranks
// those).
func quantizeQuery(q []float32, qi []int16) (queryQuant, bool) {
	var qq queryQuant
	var mx, n2 float64
	for _, x := range q {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return qq, false
		}
		mx = max(mx, math.Abs(f))
		n2 += f * f
	}
	if mx == 0 {
		return qq, false
	}
	top := float64(prefilterQueryMax(len(q)))
	qq.scale, qq.norm = mx/top, math.Sqrt(n2)
	var m2 float64
	for j, x := range q {
		v := max(-top, min(top, math.Round(float64(x)/qq.scale)))
		qi[j] = int16(v)
		sm := qq.scale * v
		qq.errMax = max(qq.errMax, math.Abs(float64(x)-sm))
		m2 += sm * sm
	}
	qq.normM = math.Sqrt(m2)
	return qq, true
}

// prefiltered is vectors.search's scan through the prefilter: the same
// top depth of the rows, scores bit for bit; false when it does not apply
// to this query (the caller scans every row).
func (v *vectors) prefiltered(buf *searchBuf, qn []float32, depth int, chunks []corpus.Chunk) ([]scored, bool) {
	p, dim := v.pre, v.dim
	n := len(p.scale)
	if depth*4 > n || uintptr(unsafe.Pointer(&qn[0]))%16 != 0 {
		return nil, false
	}
	b := &buf.pre
	b.qi = growTo(b.qi, dim)
	qq, ok := quantizeQuery(qn, b.qi)
	if !ok {
		return nil, false
	}
	b.ints = growTo(b.ints, n)
	if g := n / 4; g > 0 {
		dotI8Rows4(&b.qi[0], &p.rows[0], uintptr(dim), uintptr(g), &b.ints[0])
	}
	for i := n &^ 3; i < n; i++ {
		b.ints[i] = dotI8(b.qi, p.rows[i*dim:(i+1)*dim])
	}
	p.bounds(b, qq, dim)
	floor := b.floor(depth)
	b.rows = b.rows[:0]
	for i, hi := range b.hi {
		if hi >= floor {
			b.rows = append(b.rows, int32(i))
		}
	}
	m := len(b.rows)
	if m > n/2 {
		return nil, false // too loose to pay: scan every row
	}
	for len(b.rows)%4 != 0 {
		b.rows = append(b.rows, b.rows[m-1]) // pad the last group (computed twice, dropped)
	}
	sims := buf.sims[:len(b.rows)]
	dotRowsAt4(&qn[0], &v.data[0], uintptr(dim), &b.rows[0], uintptr(len(b.rows)/4), &sims[0])
	h := topHeap{chunks: chunks, items: buf.items[:0]}
	for j, i := range b.rows[:m] {
		h.offer(scored{idx: int(i), score: float64(sims[j])}, depth)
	}
	out := h.drain()
	buf.items = h.items
	return out, true
}

// bounds fills b.hi with each row's upper bound and b.bins with the
// histogram of the lower bounds, from the integer products in b.ints and
// the query's quantization qq.
func (p *prefilter) bounds(b *prefilterBuf, qq queryQuant, dim int) {
	n := len(p.scale)
	// gamma bounds the float32 kernel's rounding: dim+8 roundings of
	// each term at most (its lanes sum dim/8 terms, then the fold).
	u := math.Ldexp(1, -24)
	gamma := float64(dim+8) * u / (1 - float64(dim+8)*u)
	// Each row's error bound is errNorm[i]*en + e0; the factor 1+1e-9
	// and the 1e-12 cover the float64 roundings of the bounds themselves.
	en := qq.normM * (1 + 1e-9)
	e0 := (qq.errMax*p.maxAbs1+gamma*p.maxNorm*qq.norm)*(1+1e-9) + 1e-12
	b.hi = growTo(b.hi, n)
	bins := &b.bins
	clear(bins[:])
	scale, errNorm, ints, his, sq := p.scale[:n], p.errNorm[:n], b.ints[:n], b.hi[:n], qq.scale
	for i, k := range ints {
		c := scale[i] * sq * float64(k)
		e := errNorm[i]*en + e0
		his[i] = c + e
		bins[max(0, min(loBins-1, int((c-e-loBase)*(loBins/loRange))))]++
	}
}

// dotI8 is dotI8Rows4 for one row.
func dotI8(q []int16, row []int8) int32 {
	var s int32
	for j, k := range row {
		s += int32(k) * int32(q[j])
	}
	return s
}

// growTo returns s resized to n, reallocated only when it is too small.
func growTo[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
