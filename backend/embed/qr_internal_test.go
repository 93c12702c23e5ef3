package embed

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// gonumQ is the thin Q of the r × c row-major a through gonum's own
// lapack64.Geqrf and lapack64.Orgqr.
func gonumQ(a []float64, r, c int) []float64 {
	a = slices.Clone(a)
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: a}
	tau := make([]float64, c)
	work := []float64{0}
	lapack64.Geqrf(g, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(g, tau, work, len(work))
	lapack64.Orgqr(g, tau, work[:1], -1)
	if need := int(work[0]); need > len(work) {
		work = make([]float64, need)
	}
	lapack64.Orgqr(g, tau, work, len(work))
	return a
}

// TestOrthonormalizeMatchesGonum: orthonormalize, whose reflectors update
// column ranges on several goroutines, is bit for bit gonum's
// Geqrf + Orgqr on one goroutine or several, for unblocked shapes (fewer
// columns than LAPACK's crossover), blocked ones (one and several
// panels), square ones, columns of zeros and a matrix too small to split.
func TestOrthonormalizeMatchesGonum(t *testing.T) {
	for _, tt := range []struct {
		name      string
		r, c      int
		zeroCols  []int
		zeroEvery int // every zeroEvery-th entry is an exact zero (0: none)
	}{
		{"small, serial", 40, 7, nil, 0},
		{"unblocked", 3000, 48, nil, 0},
		{"one blocked panel (lsa-128)", 4000, 144, nil, 0},
		{"several panels (lsa-256)", 2500, 272, nil, 0},
		{"square", 300, 300, nil, 0},
		{"zero columns and entries", 2000, 150, []int{0, 70, 149}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.r), uint64(tt.c)))
			a := make([]float64, tt.r*tt.c)
			for i := range a {
				if tt.zeroEvery == 0 || i%tt.zeroEvery != 0 {
					a[i] = rng.NormFloat64()
				}
			}
			for _, j := range tt.zeroCols {
				for i := range tt.r {
					a[i*tt.c+j] = 0
				}
			}
			want := gonumQ(a, tt.r, tt.c)
			for _, procs := range []int{1, 2, 3} {
				prev := runtime.GOMAXPROCS(procs)
				got, err := orthonormalize(slices.Clone(a), tt.r, tt.c)
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("GOMAXPROCS %d: Q differs from gonum's Geqrf + Orgqr", procs)
				}
			}
		})
	}
}

func TestOrthonormalizeRejectsWide(t *testing.T) {
	if _, err := orthonormalize(make([]float64, 6), 2, 3); err == nil {
		t.Error("a 2 × 3 matrix was accepted")
	}
}

// BenchmarkOrthonormalize: the QR of lsa-128's 20,000 × 144 document-side
// matrix (run with -cpu 1,2 to see the split reflectors).
func BenchmarkOrthonormalize(b *testing.B) {
	const r, c = 20000, 144
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, r*c)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	buf := make([]float64, len(a))
	for b.Loop() {
		copy(buf, a)
		if _, err := orthonormalize(buf, r, c); err != nil {
			b.Fatal(err)
		}
	}
}
