package engine

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/experiments/shareddata"
)

// gonumDots is the reference: row i · q for every row of v by gonum's
// Sgemv, as similarities computed them before dotRows4.
func gonumDots(v *vectors, q []float32) []float32 {
	n := len(v.data) / v.dim
	out := make([]float32, n)
	blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: n, Cols: v.dim, Stride: v.dim, Data: v.data},
		blas32.Vector{N: v.dim, Inc: 1, Data: q}, 0, blas32.Vector{N: n, Inc: 1, Data: out})
	return out
}

// refSearch is vectors.search as it was before the AVX kernel and the
// typed heap: gonum's similarities, container/heap over an interface.
func refSearch(v *vectors, q []float32, depth int, chunks []corpus.Chunk) []scored {
	qn := slices.Clone(q)
	normalize(qn)
	sims := gonumDots(v, qn)
	depth = min(depth, len(sims))
	h := &refHeap{chunks: chunks}
	for i, sim := range sims {
		x := scored{idx: i, score: float64(sim)}
		if len(h.items) < depth {
			heap.Push(h, x)
			continue
		}
		if rankedBefore(chunks, x, h.items[0]) {
			h.items[0] = x
			heap.Fix(h, 0)
		}
	}
	out := make([]scored, len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(scored)
	}
	return out
}

type refHeap struct {
	chunks []corpus.Chunk
	items  []scored
}

func (h *refHeap) Len() int           { return len(h.items) }
func (h *refHeap) Less(i, j int) bool { return rankedBefore(h.chunks, h.items[j], h.items[i]) }
func (h *refHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *refHeap) Push(x any)         { h.items = append(h.items, x.(scored)) }
func (h *refHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// sameSearch fails unless v.search ranks as refSearch does, scores bit
// for bit.
func sameSearch(t *testing.T, v *vectors, q []float32, depth int, chunks []corpus.Chunk) {
	t.Helper()
	want := refSearch(v, q, depth, chunks)
	got, err := v.search(q, depth, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("depth %d: %d hits, reference %d", depth, len(got), len(want))
	}
	for i := range want {
		if got[i].idx != want[i].idx || math.Float64bits(got[i].score) != math.Float64bits(want[i].score) {
			t.Fatalf("depth %d: hit %d: %+v, reference %+v", depth, i, got[i], want[i])
		}
	}
}

// sameDots fails unless v.dots gives every row's gonum result bit for
// bit, over all rows and over row ranges that start and end off a group
// of 4.
func sameDots(t *testing.T, v *vectors, q []float32) {
	t.Helper()
	want := gonumDots(v, q)
	n := len(want)
	for _, r := range [][2]int{{0, n}, {min(1, n), n}, {min(3, n), max(min(3, n), n-2)}} {
		got := make([]float32, r[1]-r[0])
		v.dots(q, r[0], r[1], got)
		for i, g := range got {
			if math.Float32bits(g) != math.Float32bits(want[r[0]+i]) {
				t.Fatalf("dim %d, rows [%d, %d): row %d: %v (%#x), gonum %v (%#x)", v.dim, r[0], r[1], r[0]+i, g, math.Float32bits(g), want[r[0]+i], math.Float32bits(want[r[0]+i]))
			}
		}
	}
	// dotRowsAt4, where the prefilter would use it: the rows in reverse,
	// the first one repeated to fill the last group.
	if !prefilterKernel || v.dim%16 != 0 || uintptr(unsafe.Pointer(&q[0]))%16 != 0 {
		return
	}
	var rows []int32
	for i := n - 1; i >= 0; i-- {
		rows = append(rows, int32(i))
	}
	for len(rows)%4 != 0 {
		rows = append(rows, 0)
	}
	got := make([]float32, len(rows))
	dotRowsAt4(&q[0], &v.data[0], uintptr(v.dim), &rows[0], uintptr(len(rows)/4), &got[0])
	for j, i := range rows {
		if math.Float32bits(got[j]) != math.Float32bits(want[i]) {
			t.Fatalf("dim %d: dotRowsAt4: row %d: %v (%#x), gonum %v (%#x)", v.dim, i, got[j], math.Float32bits(got[j]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestDotRowsMatchesGonum: the AVX kernel's similarities equal gonum's
// SSE kernel's bit for bit, for dimensions it takes (multiples of 16) and
// others (gonum alone), row counts around its groups of 4, and values
// that expose any change of summation order: wide magnitudes that cancel,
// subnormals, overflow to infinity, NaNs with distinct payloads.
func TestDotRowsMatchesGonum(t *testing.T) {
	if !dotKernel {
		t.Log("no AVX kernel on this platform: gonum alone (the comparison still runs)")
	}
	rng := rand.New(rand.NewPCG(25, 1))
	gens := []struct {
		name string
		gen  func() float32
	}{
		{"normal", func() float32 { return float32(rng.NormFloat64()) }},
		{"wide magnitudes", func() float32 {
			return float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(60)-30)))
		}},
		{"cancelling", func() float32 { return float32(rng.IntN(3)-1)*1e6 + float32(rng.NormFloat64()) }},
		{"subnormal", func() float32 { return math.Float32frombits(rng.Uint32N(1<<23)) * float32(1-2*rng.IntN(2)) }},
		{"overflow", func() float32 { return float32(rng.NormFloat64()) * 1e20 }},
		{"nan payloads", func() float32 {
			if rng.IntN(8) == 0 {
				return math.Float32frombits(0x7fc00000 | rng.Uint32N(1<<22) | uint32(rng.IntN(2))<<31)
			}
			return float32(rng.NormFloat64())
		}},
	}
	for _, g := range gens {
		for _, dim := range []int{1, 8, 15, 16, 32, 48, 100, 128, 256, 384, 1536} {
			for _, rows := range []int{1, 3, 4, 5, 8, 9, 67} {
				data := make([]float32, rows*dim)
				for i := range data {
					data[i] = g.gen()
				}
				q := make([]float32, dim)
				for i := range q {
					q[i] = g.gen()
				}
				// A query off a 16-byte boundary: gonum trims its first
				// values, so the kernel must leave it to gonum.
				unaligned := make([]float32, dim+1)[1:]
				copy(unaligned, q)
				t.Run(g.name, func(t *testing.T) {
					sameDots(t, &vectors{dim: dim, data: data}, q)
					sameDots(t, &vectors{dim: dim, data: data}, unaligned)
				})
			}
		}
	}
}

// TestDotRowsSciFact: on the real index (SciFact, lsa-256 and lsa-128),
// every SciFact query's similarity to every document is gonum's bit for
// bit, and its dense ranking at depths 10, 100 and 1000 is the
// reference's (refSearch), through the prefilter for nearly all.
func TestDotRowsSciFact(t *testing.T) {
	dir := shareddata.Path(t, "scifact")
	queries := readQueryTexts(t, filepath.Join(dir, "queries.jsonl"))
	for _, model := range []string{"lsa-256", "lsa-128"} {
		t.Run(model, func(t *testing.T) {
			c := DefaultConfig()
			c.Corpus = corpus.Config{Path: filepath.Join(dir, "corpus.jsonl"), Format: corpus.FormatBEIR}
			c.Retrievers = []string{Dense}
			c.Dense.Model = model
			c.CacheDir = t.TempDir()
			e, err := New(c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if err := e.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			ran := 0
			for _, text := range queries {
				q, err := e.emb.EmbedQuery(context.Background(), text)
				if err != nil {
					t.Fatal(err)
				}
				for _, depth := range []int{10, 100, 1000} {
					sameSearch(t, e.vec, q, depth, e.chunks)
					if prefilterRan(t, e.vec, q, depth, e.chunks) {
						ran++
					}
				}
				normalize(q)
				sameDots(t, e.vec, q)
			}
			if prefilterKernel && ran < len(queries)*3*9/10 {
				t.Errorf("the prefilter ran for %d of %d searches, want at least 90%%", ran, 3*len(queries))
			}
			t.Logf("the prefilter ran for %d of %d searches", ran, 3*len(queries))
		})
	}
}

func readQueryTexts(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, q.Text)
	}
	return texts
}

// TestVectorsSearchMatchesReference: the dense search (AVX kernel, typed
// heap, reused buffers) ranks as the search before them (refSearch) at
// every depth, with ties (duplicated rows), zero rows and NaN rows, for
// searches run one after another on the same index (reused buffers).
func TestVectorsSearchMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	for _, dim := range []int{2, 16, 100, 256} {
		rows := make([][]float32, 301)
		for i := range rows {
			rows[i] = make([]float32, dim)
			switch {
			case i%7 == 3:
				copy(rows[i], rows[i-3]) // a tie
			case i == 11:
				// zero: cosine 0 with every query
			case i == 12 || i == 200:
				rows[i][dim/2] = float32(math.NaN())
			default:
				for j := range rows[i] {
					rows[i][j] = float32(rng.NormFloat64())
				}
			}
		}
		v, err := newVectors(rows, dim)
		if err != nil {
			t.Fatal(err)
		}
		chunks := testChunks(len(rows))
		for i := range chunks {
			chunks[i].DocID = "d" + strconv.Itoa(i%50)
		}
		for range 5 {
			q := make([]float32, dim)
			for j := range q {
				q[j] = float32(rng.NormFloat64())
			}
			for _, depth := range []int{1, 2, 10, 100, 300, 301, 1000} {
				sameSearch(t, v, q, depth, chunks)
			}
		}
	}
}

// FuzzDotRows: for any values (the fuzzer's bytes as float32s, NaNs and
// infinities included) and any dimension, the kernel's similarities are
// gonum's bit for bit.
func FuzzDotRows(f *testing.F) {
	seed := make([]byte, 4*48*3)
	for i := range seed {
		seed[i] = byte(i * 37)
	}
	f.Add(uint8(16), seed[:4*16*6])
	f.Add(uint8(32), seed[:4*32*2+8])
	f.Add(uint8(48), seed[:4*48+4*48])
	f.Fuzz(func(t *testing.T, dim uint8, raw []byte) {
		d := int(dim)
		if d == 0 || len(raw) < 8*d {
			return
		}
		vals := make([]float32, len(raw)/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		q := append([]float32(nil), vals[:d]...)
		rows := (len(vals) - d) / d
		sameDots(t, &vectors{dim: d, data: vals[d : d+rows*d]}, q)
	})
}

// BenchmarkDenseDots is the similarity scan of a SciFact-sized index
// (5,183 rows of 256 values, random) on one core: gonum's Sgemv, as the
// scan ran before, and dots (the AVX kernel where it applies).
func BenchmarkDenseDots(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 5183, 256
	v := &vectors{dim: dim, data: make([]float32, rows*dim)}
	for i := range v.data {
		v.data[i] = float32(rng.NormFloat64())
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	out := make([]float32, rows)
	b.Run("gonum", func(b *testing.B) {
		for b.Loop() {
			blas32.Gemv(blas.NoTrans, 1, blas32.General{Rows: rows, Cols: dim, Stride: dim, Data: v.data},
				blas32.Vector{N: dim, Inc: 1, Data: q}, 0, blas32.Vector{N: rows, Inc: 1, Data: out})
		}
	})
	b.Run("dots", func(b *testing.B) {
		for b.Loop() {
			v.dots(q, 0, rows, out)
		}
	})
}

// BenchmarkDenseSearch is a dense search at depth 100 of a SciFact-sized
// index (5,183 rows of 256 values, random) on one core: refSearch (gonum,
// container/heap, fresh buffers) and vectors.search.
func BenchmarkDenseSearch(b *testing.B) {
	defer func(p int) { denseParts = p }(denseParts)
	denseParts = 1
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 5183, 256
	data := make([][]float32, rows)
	for i := range data {
		data[i] = make([]float32, dim)
		for j := range data[i] {
			data[i][j] = float32(rng.NormFloat64())
		}
	}
	v, err := newVectors(data, dim)
	if err != nil {
		b.Fatal(err)
	}
	chunks := testChunks(rows)
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			refSearch(v, q, 100, chunks)
		}
	})
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.search(q, 100, chunks); err != nil {
				b.Fatal(err)
			}
		}
	})
}
