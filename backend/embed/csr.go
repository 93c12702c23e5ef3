package embed

import (
	"runtime"
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

// transpose returns the matrix's transpose, also in CSR form (so products
// with it are row-wise gathers that parallelize without write conflicts).
func (a *csr) transpose() *csr {
	t := &csr{rows: a.cols, cols: a.rows, ptr: make([]int, a.cols+1),
		col: make([]int32, len(a.col)), val: make([]float64, len(a.val))}
	for _, c := range a.col {
		t.ptr[c+1]++
	}
	for i := 0; i < a.cols; i++ {
		t.ptr[i+1] += t.ptr[i]
	}
	next := make([]int, a.cols)
	copy(next, t.ptr[:a.cols])
	for r := 0; r < a.rows; r++ {
		for k := a.ptr[r]; k < a.ptr[r+1]; k++ {
			c := a.col[k]
			t.col[next[c]] = int32(r)
			t.val[next[c]] = a.val[k]
			next[c]++
		}
	}
	return t
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
	parts := runtime.GOMAXPROCS(0)
	nnz := len(a.val)
	if parts <= 1 || nnz < 1<<14 {
		work(0, a.rows)
		return
	}
	var wg sync.WaitGroup
	lo := 0
	for p := 1; p <= parts && lo < a.rows; p++ {
		target := nnz * p / parts
		hi := lo
		for hi < a.rows && (a.ptr[hi] < target || hi == lo) {
			hi++
		}
		if p == parts {
			hi = a.rows
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			work(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}
