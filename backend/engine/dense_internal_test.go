package engine

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

func testChunks(n int) []corpus.Chunk {
	cs := make([]corpus.Chunk, n)
	for i := range cs {
		cs[i] = corpus.Chunk{ID: "c" + strconv.Itoa(i)}
	}
	return cs
}

func TestVectorsSearch(t *testing.T) {
	// c1 and c3 tie with the query (same direction); c0 is opposite; c2 is
	// orthogonal; c4 is zero.
	rows := [][]float32{{-1, 0}, {2, 0}, {0, 3}, {0.5, 0}, {0, 0}}
	chunks := testChunks(len(rows))
	v, err := newVectors(rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		depth int
		want  []string
	}{
		// ties break by id descending (the fusion tie rule)
		{"all", 10, []string{"c3", "c1", "c4", "c2", "c0"}},
		{"top 2, tie by id", 2, []string{"c3", "c1"}},
		{"top 1", 1, []string{"c3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.search([]float32{4, 0}, tt.depth, chunks)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d results, want %d", len(got), len(tt.want))
			}
			for i, s := range got {
				if chunks[s.idx].ID != tt.want[i] {
					t.Errorf("rank %d: %s (score %v), want %s", i+1, chunks[s.idx].ID, s.score, tt.want[i])
				}
			}
			if got[0].score != 1 {
				t.Errorf("cosine of parallel vectors = %v, want 1", got[0].score)
			}
		})
	}
	if _, err := v.search([]float32{1, 2, 3}, 3, chunks); err == nil {
		t.Error("query of the wrong dimension: want an error")
	}
	if _, err := newVectors([][]float32{{1, 2, 3}}, 2); err == nil {
		t.Error("row of the wrong dimension: want an error")
	}
}

func TestVectorsSaveLoad(t *testing.T) {
	v, err := newVectors([][]float32{{1, 2}, {3, 4}, {0, 0}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "d", "vectors.f32")
	if err := v.save(p); err != nil {
		t.Fatal(err)
	}
	back, err := loadVectors(p, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.data {
		if back.data[i] != v.data[i] {
			t.Fatalf("value %d: %v, want %v", i, back.data[i], v.data[i])
		}
	}
	if _, err := loadVectors(p, 4, 2); err == nil {
		t.Error("row count mismatch: want an error")
	}
}

func BenchmarkDenseExact(b *testing.B) {
	const n, dim = 5000, 384
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = make([]float32, dim)
		for j := range rows[i] {
			rows[i][j] = float32(r.NormFloat64())
		}
	}
	v, err := newVectors(rows, dim)
	if err != nil {
		b.Fatal(err)
	}
	chunks := testChunks(n)
	for b.Loop() {
		if _, err := v.search(rows[7], 100, chunks); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNewVectorsAdoptsContiguousRows: rows back to back in one array (as
// FitEmbed returns them) become the index's storage, normalized in place,
// bit for bit the index copied rows give; separate rows are copied and
// left as they were. A save and load round trip keeps every bit.
func TestNewVectorsAdoptsContiguousRows(t *testing.T) {
	const n, dim = 50, 7
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, n*dim)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	data[3*dim], data[3*dim+1] = 0, 0 // some zeros; row 5 all zero
	clear(data[5*dim : 6*dim])
	contiguous := make([][]float32, n)
	separate := make([][]float32, n)
	for i := range n {
		contiguous[i] = data[i*dim : (i+1)*dim]
		separate[i] = append([]float32(nil), contiguous[i]...)
	}
	copied, err := newVectors(separate, dim)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(separate[1], data[dim:2*dim]) {
		t.Error("newVectors changed rows it copied")
	}
	adopted, err := newVectors(contiguous, dim)
	if err != nil {
		t.Fatal(err)
	}
	if &adopted.data[0] != &data[0] || &copied.data[0] == &separate[0][0] {
		t.Error("contiguous rows were copied, or separate rows adopted")
	}
	if !slices.Equal(adopted.data, copied.data) {
		t.Error("the adopted index differs from the copied one")
	}
	path := filepath.Join(t.TempDir(), "vectors.f32")
	if err := adopted.save(path); err != nil {
		t.Fatal(err)
	}
	back, err := loadVectors(path, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.data, copied.data) {
		t.Error("save + load changed the vectors")
	}
	if _, err := loadVectors(path, n+1, dim); err == nil {
		t.Error("loadVectors accepted a file of another row count")
	}
}
