package engine

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// vectors is the dense retriever: one L2-normalized float32 row per chunk,
// searched exactly by cosine similarity (a dot product of unit vectors).
type vectors struct {
	dim  int
	data []float32 // len(chunks) * dim, row i is chunk i

	searching atomic.Int32 // searches in similarities now (see splitParts)
	bufs      sync.Pool    // *searchBuf
	pre       *prefilter   // the int8 copy searches bound rows with; nil: none (see dense_prefilter.go)
}

// newVectors L2-normalizes rows into the index. A zero row stays zero
// (cosine 0 with every query). Rows lying back to back in one array, as
// embed.LSA.FitEmbed returns them, become the index's storage, normalized
// in place (the caller must not use them afterwards); other rows are
// copied.
func newVectors(rows [][]float32, dim int) (*vectors, error) {
	if v, ok := adoptRows(rows, dim); ok {
		return v, nil
	}
	v := &vectors{dim: dim, data: make([]float32, len(rows)*dim)}
	for i, r := range rows {
		if len(r) != dim {
			return nil, fmt.Errorf("dense index: vector %d has %d dimensions, want %d", i, len(r), dim)
		}
		copy(v.data[i*dim:], r)
		normalize(v.data[i*dim : (i+1)*dim])
	}
	v.pre = newPrefilter(v.data, dim)
	return v, nil
}

// adoptRows returns rows as an index without a copy when they are dim
// values each, back to back in one array.
func adoptRows(rows [][]float32, dim int) (*vectors, bool) {
	n := len(rows)
	if n == 0 || dim == 0 || cap(rows[0]) < n*dim {
		return nil, false
	}
	data := rows[0][:n*dim]
	for i, r := range rows {
		if len(r) != dim || &r[0] != &data[i*dim] {
			return nil, false
		}
	}
	for i := range n {
		normalize(data[i*dim : (i+1)*dim])
	}
	return &vectors{dim: dim, data: data, pre: newPrefilter(data, dim)}, true
}

func normalize(x []float32) {
	var s float64
	for _, f := range x {
		s += float64(f) * float64(f)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range x {
		x[i] *= inv
	}
}

// search returns the depth chunks most similar to q (normalized here),
// best first, ties by the fusion tie rule (see rankedBefore). With a
// prefilter (dense_prefilter.go) it computes the exact similarity of only
// the rows that can reach the top depth; the ranking and the scores are
// the full scan's either way.
func (v *vectors) search(q []float32, depth int, chunks []corpus.Chunk) ([]scored, error) {
	if len(q) != v.dim {
		return nil, fmt.Errorf("dense search: query vector has %d dimensions, want %d", len(q), v.dim)
	}
	n := len(v.data) / max(v.dim, 1)
	depth = min(depth, n)
	if depth <= 0 {
		return nil, nil
	}
	buf, _ := v.bufs.Get().(*searchBuf)
	if buf == nil {
		buf = &searchBuf{q: make([]float32, v.dim), sims: make([]float32, n)}
	}
	defer v.bufs.Put(buf)
	qn := buf.q
	copy(qn, q)
	normalize(qn)
	if v.pre != nil {
		if out, ok := v.prefiltered(buf, qn, depth, chunks); ok {
			return out, nil
		}
	}
	sims := buf.sims
	v.similarities(qn, sims)
	h := topHeap{chunks: chunks, items: buf.items[:0]}
	for i, sim := range sims {
		h.offer(scored{idx: i, score: float64(sim)}, depth)
	}
	out := h.drain()
	buf.items = h.items
	return out, nil
}

// searchBuf is one search's scratch space, reused between searches: the
// normalized query and the similarities (one per row), and the heap.
type searchBuf struct {
	q, sims []float32
	items   []scored
	pre     prefilterBuf
}

// denseBlockValues is the least number of values (rows × dimensions) a
// block of the similarity product gets when it is split across cores:
// below it, starting a goroutine costs more than it saves.
const denseBlockValues = 1 << 18

// denseParts bounds the blocks of one similarity product (0: GOMAXPROCS);
// tests set it to 1 to compare the split product with the whole one.
var denseParts = 0

// similarities sets sims[i] to row i · q: one matrix-vector product
// (each row's dot product summed as gonum's SSE kernel sums it: see dots),
// split into row blocks computed on every core when the matrix is large
// and no other search is scanning (concurrent searches keep the cores busy
// already: splitting theirs only adds goroutines waiting for a core). Each
// row's dot product is the same sum of the same values whichever block
// holds it, so the split changes no similarity, only how soon a lone
// search has them all.
func (v *vectors) similarities(q, sims []float32) {
	n := len(sims)
	others := v.searching.Add(1) > 1
	defer v.searching.Add(-1)
	parts := splitParts(n, v.dim, denseParts, runtime.GOMAXPROCS(0), others)
	gemv := func(lo, hi int) { v.dots(q, lo, hi, sims[lo:hi]) }
	if parts == 1 {
		gemv(0, n)
		return
	}
	step := (n + parts - 1) / parts
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		wg.Go(func() { gemv(lo, min(lo+step, n)) })
	}
	gemv(0, step)
	wg.Wait()
}

// dots sets out[i-lo] to row i · q for the rows [lo, hi): gonum's
// Sgemv, whose SSE kernel (DotUnitary) computes each row's dot product,
// or dotRows4, the same summation four rows at a time with AVX, where it
// applies (a dimension that is a multiple of 16 and a 16-byte aligned q,
// as DotUnitary then sums every value in its unrolled loop).
func (v *vectors) dots(q []float32, lo, hi int, out []float32) {
	if dotKernel && v.dim > 0 && v.dim%16 == 0 && uintptr(unsafe.Pointer(&q[0]))%16 == 0 {
		if g := (hi - lo) / 4; g > 0 {
			dotRows4(&q[0], &v.data[lo*v.dim], uintptr(v.dim), uintptr(g), &out[0])
			lo, out = lo+4*g, out[4*g:]
		}
	}
	if lo < hi {
		blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: hi - lo, Cols: v.dim, Stride: v.dim, Data: v.data[lo*v.dim : hi*v.dim]},
			blas32.Vector{N: v.dim, Inc: 1, Data: q}, 0, blas32.Vector{N: hi - lo, Inc: 1, Data: out})
	}
}

// splitParts is how many row blocks a product of n rows of dim values is
// split into: parts (0: cores), at most one per denseBlockValues values,
// and 1 while other searches scan.
func splitParts(n, dim, parts, cores int, others bool) int {
	if others {
		return 1
	}
	if parts <= 0 {
		parts = cores
	}
	return max(1, min(parts, n*dim/denseBlockValues))
}

// topHeap is a min-heap of the best items so far: its root is the worst.
// Its operations are container/heap's (Push, Fix at the root, Pop), step
// for step, on a typed slice instead of through an interface.
type topHeap struct {
	chunks []corpus.Chunk
	items  []scored
}

func (h *topHeap) better(a, b scored) bool { return rankedBefore(h.chunks, a, b) }

// less is container/heap's Less: item i is worse than item j.
func (h *topHeap) less(i, j int) bool { return h.better(h.items[j], h.items[i]) }

// offer keeps x if it is among the depth best so far.
func (h *topHeap) offer(x scored, depth int) {
	if len(h.items) < depth {
		h.push(x)
		return
	}
	if h.better(x, h.items[0]) {
		h.items[0] = x
		h.fixRoot()
	}
}

// drain pops every item, best first, into a new slice.
func (h *topHeap) drain() []scored {
	out := make([]scored, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}

// push is heap.Push.
func (h *topHeap) push(x scored) {
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

// fixRoot is heap.Fix(h, 0).
func (h *topHeap) fixRoot() {
	if !h.down(0, len(h.items)) {
		h.up(0)
	}
}

// pop is heap.Pop.
func (h *topHeap) pop() scored {
	n := len(h.items) - 1
	h.items[0], h.items[n] = h.items[n], h.items[0]
	h.down(0, n)
	x := h.items[n]
	h.items = h.items[:n]
	return x
}

func (h *topHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		j = i
	}
}

func (h *topHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2 // right child
		}
		if !h.less(j, i) {
			break
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		i = j
	}
	return i > i0
}

// vectorMagic starts a vector cache file, followed by the row count and the
// dimension (uint32 little endian) and the rows.
const vectorMagic = "FTVEC001"

// save writes v to path atomically.
func (v *vectors) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save vectors: %w", err)
	}
	// A temporary of its own beside path: the rename stays on one
	// filesystem, and two builders of one cache do not share it.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("save vectors: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(vectorMagic)
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(v.data)/max(v.dim, 1)))
	binary.LittleEndian.PutUint32(hdr[4:], uint32(v.dim))
	w.Write(hdr[:])
	put := func(b []byte, x float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(x)) }
	if err := writeLE(w, v.data, 4, put); err != nil {
		f.Close()
		return fmt.Errorf("save vectors: %w", err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("save vectors: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save vectors: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save vectors: %w", err)
	}
	return nil
}

// loadVectors reads a file written by save and checks it holds n rows of
// dim values.
func loadVectors(path string, n, dim int) (*vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr [16]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || string(hdr[:8]) != vectorMagic {
		return nil, fmt.Errorf("load vectors: %s: not a vector cache file", path)
	}
	gotN, gotDim := int(binary.LittleEndian.Uint32(hdr[8:12])), int(binary.LittleEndian.Uint32(hdr[12:]))
	if gotN != n || gotDim != dim {
		return nil, fmt.Errorf("load vectors: %s: holds %d×%d, want %d×%d", path, gotN, gotDim, n, dim)
	}
	v := &vectors{dim: dim, data: make([]float32, n*dim)}
	// A block at a time: no second copy of the file in memory.
	buf := make([]byte, 64<<10)
	for i := 0; i < len(v.data); {
		k := min(len(buf)/4, len(v.data)-i)
		if _, err := io.ReadFull(r, buf[:4*k]); err != nil {
			return nil, fmt.Errorf("load vectors: %s: %w", path, err)
		}
		for j := range k {
			v.data[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
		}
		i += k
	}
	v.pre = newPrefilter(v.data, dim)
	return v, nil
}
