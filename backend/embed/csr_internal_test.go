package embed

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// randomCSR returns a rows × cols sparse matrix with about perRow entries
// a row (ascending columns) from seed.
func randomCSR(rows, cols, perRow int, seed uint64) *csr {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := &csr{rows: rows, cols: cols, ptr: []int{0}}
	for range rows {
		var cs []int32
		for range perRow {
			cs = append(cs, int32(rng.IntN(cols)))
		}
		slices.Sort(cs)
		cs = slices.Compact(cs)
		for _, c := range cs {
			a.col = append(a.col, c)
			a.val = append(a.val, rng.NormFloat64())
		}
		a.ptr = append(a.ptr, len(a.col))
	}
	return a
}

// TestMulTDenseMatchesTranspose: aᵀ·b without a transposed copy is bit for
// bit the product through a CSR transpose (each output row summed over its
// column's entries in increasing row order), on one goroutine or several.
func TestMulTDenseMatchesTranspose(t *testing.T) {
	const l = 7
	for _, tt := range []struct {
		name               string
		rows, cols, perRow int
	}{
		{"serial (few entries)", 50, 30, 5},
		{"parallel", 3000, 800, 12},
		{"empty rows and columns", 2000, 5000, 9},
	} {
		a := randomCSR(tt.rows, tt.cols, tt.perRow, 7)
		rng := rand.New(rand.NewPCG(3, 4))
		b := make([]float64, a.rows*l)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		// The reference: the transpose's rows, entries in increasing row order.
		want := make([]float64, a.cols*l)
		byCol := make([][][2]int, a.cols) // column -> (row, entry)
		for r := range a.rows {
			for k := a.ptr[r]; k < a.ptr[r+1]; k++ {
				byCol[a.col[k]] = append(byCol[a.col[k]], [2]int{r, k})
			}
		}
		for c, es := range byCol {
			for _, e := range es {
				floats.AddScaled(want[c*l:(c+1)*l], a.val[e[1]], b[e[0]*l:(e[0]+1)*l])
			}
		}
		for _, procs := range []int{1, 2, 3} {
			prev := runtime.GOMAXPROCS(procs)
			got := a.mulTDenseInto(make([]float64, a.cols*l), b, l)
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(got, want) {
				t.Errorf("%s, GOMAXPROCS %d: aᵀ·b differs from the transpose's product", tt.name, procs)
			}
		}
	}
}

// TestGramMatchesMul: csr.gram, qᵀ·(a·w) a block of a·w's rows at a time,
// is bit for bit gonum's mat.Dense.Mul(qᵀ, a·w) (the randomized SVD's
// l × l matrix before it), on one goroutine or several, for fewer rows
// than a block and for several blocks with a partial last one.
func TestGramMatchesMul(t *testing.T) {
	const l = 20
	for _, rows := range []int{300, 2*gramRows + 77} {
		a := randomCSR(rows, 900, 10, 11)
		rng := rand.New(rand.NewPCG(5, 6))
		gauss := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				if rng.IntN(10) > 0 { // some exact zeros, which Dgemm skips
					v[i] = rng.NormFloat64()
				}
			}
			return v
		}
		q, w := gauss(rows*l), gauss(a.cols*l)
		var want mat.Dense
		want.Mul(mat.NewDense(rows, l, q).T(), mat.NewDense(rows, l, a.mulDense(w, l)))
		for _, procs := range []int{1, 2, 3} {
			prev := runtime.GOMAXPROCS(procs)
			got := a.gram(q, w, l)
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(got, want.RawMatrix().Data) {
				t.Errorf("%d rows, GOMAXPROCS %d: gram differs from mat.Dense.Mul", rows, procs)
			}
		}
	}
}
