package embed

import (
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
)

// csr is a sparse matrix in compressed sparse row form: the entries of row
// i are cols[ptr[i]:ptr[i+1]] (ascending) with values vals[ptr[i]:ptr[i+1]].
type csr struct {
	rows, cols int
	ptr        []int
	col        []int32
	val        []float64
}

// mulTDenseInto writes aᵀ·b into out (a.cols × l, overwritten; it must
// not overlap b) for a dense row-major b of a.rows rows and l columns, and
// returns it, without a transposed copy of a. Output row c sums the
// entries of column c in increasing row order, the order a CSR transpose
// lists them in, so the result is bit for bit the product with the
// transpose. Columns are split across GOMAXPROCS goroutines by their
// number of entries; each scans every row for the entries of its columns.
func (a *csr) mulTDenseInto(out, b []float64, l int) []float64 {
	clear(out)
	parallelCols(a, func(lo, hi int32) {
		for r := 0; r < a.rows; r++ {
			cols := a.col[a.ptr[r]:a.ptr[r+1]]
			k, _ := slices.BinarySearch(cols, lo)
			src := b[r*l : (r+1)*l]
			for k += a.ptr[r]; k < a.ptr[r+1] && a.col[k] < hi; k++ {
				c := int(a.col[k])
				floats.AddScaled(out[c*l:(c+1)*l], a.val[k], src)
			}
		}
	})
	return out
}

// parallelCols calls work on contiguous column ranges [lo, hi) of roughly
// equal numbers of entries, one goroutine per range.
func parallelCols(a *csr, work func(lo, hi int32)) {
	if !splits(len(a.val)) {
		work(0, int32(a.cols))
		return
	}
	cum := make([]int, a.cols+1) // cum[c]: the entries of columns before c
	for _, c := range a.col {
		cum[c+1]++
	}
	for c := range a.cols {
		cum[c+1] += cum[c]
	}
	splitByWeight(cum, func(lo, hi int) { work(int32(lo), int32(hi)) })
}

// mulDense returns a·b for a dense row-major b of a.cols rows and l
// columns, as a dense row-major a.rows × l slice. Rows are split across
// GOMAXPROCS goroutines by their number of entries; each output row is
// summed by one goroutine in entry order, so the result does not depend on
// the split.
func (a *csr) mulDense(b []float64, l int) []float64 {
	return a.mulDenseInto(make([]float64, a.rows*l), b, l)
}

// mulDenseInto is mulDense writing into out (a.rows × l, overwritten; it
// must not overlap b) and returning it.
func (a *csr) mulDenseInto(out, b []float64, l int) []float64 {
	clear(out)
	parallelRows(a, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			dst := out[r*l : (r+1)*l]
			for k := a.ptr[r]; k < a.ptr[r+1]; k++ {
				c := int(a.col[k])
				floats.AddScaled(dst, a.val[k], b[c*l:(c+1)*l])
			}
		}
	})
	return out
}

// parallelRows calls work on contiguous row ranges of roughly equal
// numbers of entries, one goroutine per range.
func parallelRows(a *csr, work func(lo, hi int)) {
	if !splits(len(a.val)) {
		work(0, a.rows)
		return
	}
	splitByWeight(a.ptr, work)
}

// splits reports whether a product over nnz entries is worth splitting
// across goroutines.
func splits(nnz int) bool { return runtime.GOMAXPROCS(0) > 1 && nnz >= 1<<14 }

// splitByWeight calls work on GOMAXPROCS contiguous ranges [lo, hi) of
// [0, len(cum)-1), each holding about an equal share of the weight, one
// goroutine per range; cum[i] is the weight of [0, i) (ascending).
func splitByWeight(cum []int, work func(lo, hi int)) {
	parts, n := runtime.GOMAXPROCS(0), len(cum)-1
	total := cum[n]
	var wg sync.WaitGroup
	lo := 0
	for p := 1; p <= parts && lo < n; p++ {
		target := total * p / parts
		hi := lo
		for hi < n && (cum[hi] < target || hi == lo) {
			hi++
		}
		if p == parts {
			hi = n
		}
		from := lo
		wg.Go(func() { work(from, hi) })
		lo = hi
	}
	wg.Wait()
}

// gramRows is the number of rows of a·w that gram holds at a time.
const gramRows = 2048

// gram returns qᵀ·(a·w), l × l row-major, for the a.rows × l q and the
// a.cols × l w (both row-major), without holding the a.rows × l product
// a·w: its rows are made gramRows at a time (each as mulDense makes it)
// and added into the result in increasing row order exactly as gonum's
// Dgemm adds them for mat.Dense.Mul(qᵀ, a·w) (for each row r, for each i
// with q[r,i] != 0, out[i,:] += q[r,i]·(a·w)[r,:]), so the result is bit
// for bit that product. Both steps split across GOMAXPROCS goroutines
// without changing any sum's order: rows of a·w, then rows of the result.
func (a *csr) gram(q, w []float64, l int) []float64 {
	out := make([]float64, l*l)
	aw := make([]float64, min(gramRows, a.rows)*l)
	parts := max(1, runtime.GOMAXPROCS(0))
	split := func(n int, work func(lo, hi int)) {
		if parts == 1 || n < 2 {
			work(0, n)
			return
		}
		var wg sync.WaitGroup
		for p := range parts {
			lo, hi := n*p/parts, n*(p+1)/parts
			wg.Add(1)
			go func() {
				defer wg.Done()
				work(lo, hi)
			}()
		}
		wg.Wait()
	}
	for r0 := 0; r0 < a.rows; r0 += gramRows {
		r1 := min(r0+gramRows, a.rows)
		split(r1-r0, func(lo, hi int) {
			for r := r0 + lo; r < r0+hi; r++ {
				dst := aw[(r-r0)*l : (r-r0+1)*l]
				clear(dst)
				for k := a.ptr[r]; k < a.ptr[r+1]; k++ {
					c := int(a.col[k])
					floats.AddScaled(dst, a.val[k], w[c*l:(c+1)*l])
				}
			}
		})
		split(l, func(lo, hi int) {
			for r := r0; r < r1; r++ {
				src := aw[(r-r0)*l : (r-r0+1)*l]
				for i, v := range q[r*l+lo : r*l+hi] {
					if v != 0 {
						floats.AddScaled(out[(lo+i)*l:(lo+i+1)*l], v, src)
					}
				}
			}
		})
	}
	return out
}
