package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

// prefilterRan reports whether a search of v for q at depth takes the
// prefilter (and does not fall back to the full scan).
func prefilterRan(t *testing.T, v *vectors, q []float32, depth int, chunks []corpus.Chunk) bool {
	t.Helper()
	if v.pre == nil {
		return false
	}
	n := len(v.data) / v.dim
	buf := &searchBuf{q: make([]float32, v.dim), sims: make([]float32, n)}
	copy(buf.q, q)
	normalize(buf.q)
	_, ok := v.prefiltered(buf, buf.q, min(depth, n), chunks)
	return ok
}

// TestPrefilterMatchesFullScan: a dense search through the prefilter
// ranks as the full scan of every row (refSearch: gonum's similarities,
// container/heap), scores bit for bit, on indexes built to strain its
// bounds: near-duplicate rows (ties and near ties at the cut), exact
// duplicates (ties broken by id), zero rows, rows dominated by one value
// (the coarsest int8 steps), sparse rows, queries equal or close to a
// row, and depths from 1 to a quarter of the rows. Indexes where every
// row ties keep it from paying, so the search falls back to the scan.
func TestPrefilterMatchesFullScan(t *testing.T) {
	if !prefilterKernel {
		t.Skip("no prefilter kernel on this platform")
	}
	rng := rand.New(rand.NewPCG(25, 7))
	normal := func(dim int) []float32 {
		r := make([]float32, dim)
		for j := range r {
			r[j] = float32(rng.NormFloat64())
		}
		return r
	}
	gens := []struct {
		name string
		row  func(dim int, prev [][]float32) []float32
		pays bool // the prefilter is expected to run for most queries
	}{
		{"normal", func(dim int, _ [][]float32) []float32 { return normal(dim) }, true},
		{"near duplicates", func(dim int, prev [][]float32) []float32 {
			if len(prev) < 8 || rng.IntN(3) == 0 {
				return normal(dim)
			}
			r := slices.Clone(prev[rng.IntN(len(prev))])
			r[rng.IntN(dim)] += float32(rng.NormFloat64() * 1e-6)
			return r
		}, true},
		{"exact duplicates", func(dim int, prev [][]float32) []float32 {
			if len(prev) < 8 || rng.IntN(2) == 0 {
				return normal(dim)
			}
			return slices.Clone(prev[rng.IntN(8)])
		}, true},
		{"zero rows", func(dim int, _ [][]float32) []float32 {
			if rng.IntN(4) == 0 {
				return make([]float32, dim)
			}
			return normal(dim)
		}, true},
		{"one large value", func(dim int, _ [][]float32) []float32 {
			r := normal(dim)
			r[rng.IntN(dim)] = float32(rng.NormFloat64() * 1e3)
			return r
		}, true},
		{"sparse", func(dim int, _ [][]float32) []float32 {
			r := make([]float32, dim)
			for range 3 {
				r[rng.IntN(dim)] = float32(rng.IntN(5) - 2)
			}
			return r
		}, false},
		{"all equal", func(dim int, _ [][]float32) []float32 {
			r := make([]float32, dim)
			for j := range r {
				r[j] = 0.5
			}
			return r
		}, false},
	}
	for _, g := range gens {
		for _, dim := range []int{16, 48, 256} {
			t.Run(g.name, func(t *testing.T) {
				const n = 1500
				rows := make([][]float32, 0, n)
				for range n {
					rows = append(rows, g.row(dim, rows))
				}
				v, err := newVectors(rows, dim)
				if err != nil {
					t.Fatal(err)
				}
				if v.pre == nil {
					t.Fatal("no prefilter built")
				}
				chunks := testChunks(n)
				ran, runs := 0, 0
				for qi := range 12 {
					var q []float32
					switch qi % 3 {
					case 0:
						q = normal(dim)
					case 1:
						q = slices.Clone(v.data[rng.IntN(n)*dim:][:dim])
					default:
						q = slices.Clone(v.data[rng.IntN(n)*dim:][:dim])
						q[rng.IntN(dim)] += 1e-3
					}
					for _, depth := range []int{1, 10, 100, n / 4} {
						sameSearch(t, v, q, depth, chunks)
						runs++
						if prefilterRan(t, v, q, depth, chunks) {
							ran++
						}
					}
				}
				if g.pays && ran < runs/2 {
					t.Errorf("dim %d: the prefilter ran for %d of %d searches, want most", dim, ran, runs)
				}
				t.Logf("dim %d: prefilter ran for %d of %d searches", dim, ran, runs)
			})
		}
	}
}

// TestPrefilterNotBuilt: no prefilter where it could not bound the rows
// or would not pay: a value that is not finite, a dimension the exact
// kernel does not take, too few rows.
func TestPrefilterNotBuilt(t *testing.T) {
	fill := func(n, dim int) []float32 {
		d := make([]float32, n*dim)
		for i := range d {
			d[i] = float32(i%7) - 3
		}
		return d
	}
	nan := fill(prefilterMinRows, 16)
	nan[100] = float32(math.NaN())
	inf := fill(prefilterMinRows, 16)
	inf[5] = float32(math.Inf(-1))
	tests := []struct {
		name string
		data []float32
		dim  int
	}{
		{"NaN", nan, 16},
		{"infinity", inf, 16},
		{"dimension not a multiple of 16", fill(prefilterMinRows, 24), 24},
		{"too few rows", fill(prefilterMinRows-1, 16), 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := newPrefilter(tt.data, tt.dim); p != nil {
				t.Error("built a prefilter")
			}
		})
	}
	if prefilterKernel && newPrefilter(fill(prefilterMinRows, 16), 16) == nil {
		t.Error("finite rows, dimension 16: no prefilter")
	}
}

// TestPrefilterQueryNotFinite: a query with a value that is not finite,
// or zero, is ranked by the full scan, as before the prefilter.
func TestPrefilterQueryNotFinite(t *testing.T) {
	if !prefilterKernel {
		t.Skip("no prefilter kernel on this platform")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dim = 2000, 32
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, dim)
		for j := range rows[i] {
			rows[i][j] = float32(rng.NormFloat64())
		}
	}
	v, err := newVectors(rows, dim)
	if err != nil {
		t.Fatal(err)
	}
	chunks := testChunks(n)
	for _, x := range []float32{float32(math.NaN()), float32(math.Inf(1)), 0} {
		q := make([]float32, dim)
		q[3] = x
		if prefilterRan(t, v, q, 10, chunks) {
			t.Errorf("query value %v: the prefilter ran", x)
		}
		sameSearch(t, v, q, 10, chunks)
	}
}

// TestDotI8Rows4: the int8 kernel's sums are the exact integer dot
// products (dotI8), the extremes included.
func TestDotI8Rows4(t *testing.T) {
	if !prefilterKernel {
		t.Skip("no prefilter kernel on this platform")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{16, 32, 256, 1024} {
		const rows = 12
		a := make([]int8, rows*dim)
		for i := range a {
			a[i] = int8(rng.IntN(255) - 127)
		}
		for i := range dim {
			a[i] = 127 // row 0 at the extreme
			a[dim+i] = -127
		}
		top := prefilterQueryMax(dim)
		q := make([]int16, dim)
		for i := range q {
			q[i] = int16(rng.IntN(2*top+1) - top)
		}
		q[0] = int16(top)
		out := make([]int32, rows)
		dotI8Rows4(&q[0], &a[0], uintptr(dim), rows/4, &out[0])
		for r := range rows {
			if want := dotI8(q, a[r*dim:(r+1)*dim]); out[r] != want {
				t.Errorf("dim %d, row %d: %d, want %d", dim, r, out[r], want)
			}
		}
		for i := range q {
			q[i] = int16(top)
		}
		dotI8Rows4(&q[0], &a[0], uintptr(dim), 1, &out[0])
		if want := int32(127 * top * dim); out[0] != want || out[1] != -want {
			t.Errorf("dim %d: extremes %d and %d, want %d and %d", dim, out[0], out[1], want, -want)
		}
	}
}

// FuzzPrefilter: for any index the fuzzer's numbers generate (a seed,
// a dimension, how many rows repeat or are zero, a depth), the search
// through the prefilter ranks as the full scan.
func FuzzPrefilter(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint8(0), uint8(0), uint16(10))
	f.Add(uint64(2), uint8(16), uint8(128), uint8(30), uint16(100))
	f.Add(uint64(3), uint8(3), uint8(250), uint8(0), uint16(1))
	f.Fuzz(func(t *testing.T, seed uint64, dims, dups, zeros uint8, depth uint16) {
		if !prefilterKernel {
			t.Skip("no prefilter kernel on this platform")
		}
		dim := 16 * (1 + int(dims)%16)
		const n = prefilterMinRows + 37
		rng := rand.New(rand.NewPCG(seed, 25))
		rows := make([][]float32, n)
		for i := range rows {
			switch {
			case i > 0 && rng.IntN(256) < int(dups):
				rows[i] = slices.Clone(rows[rng.IntN(i)])
				rows[i][rng.IntN(dim)] *= 1 + float32(rng.NormFloat64()*1e-5)
			case rng.IntN(256) < int(zeros):
				rows[i] = make([]float32, dim)
			default:
				rows[i] = make([]float32, dim)
				for j := range rows[i] {
					rows[i][j] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(9)-4)))
				}
			}
		}
		v, err := newVectors(rows, dim)
		if err != nil {
			t.Fatal(err)
		}
		q := slices.Clone(rows[rng.IntN(n)])
		q[0] += float32(rng.NormFloat64())
		sameSearch(t, v, q, 1+int(depth)%(n/4), testChunks(n))
	})
}

// BenchmarkNewPrefilter is the prefilter's build for a SciFact-sized
// index (5,183 rows of 256 values, random): work every start does, the
// index cache or not.
func BenchmarkNewPrefilter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 5183, 256
	data := make([]float32, rows*dim)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	for b.Loop() {
		if newPrefilter(data, dim) == nil && prefilterKernel {
			b.Fatal("no prefilter")
		}
	}
}
