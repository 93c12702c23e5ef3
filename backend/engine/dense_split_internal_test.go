package engine

import (
	"math/rand/v2"
	"testing"
)

// TestVectorsSplitProductEqual: the similarity product split into row
// blocks across cores gives every similarity, and so every ranking, the
// whole product gives (bit for bit), for matrices around the block size
// and block counts that do and do not divide the rows.
func TestVectorsSplitProductEqual(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	tests := []struct {
		name       string
		rows, dim  int
		parts      int
		depth      int
		wantSplits bool
	}{
		{"below one block: not split", 100, 64, 4, 10, false},
		{"two blocks", 2*denseBlockValues/256 + 3, 256, 2, 100, true},
		{"three uneven blocks", 3*denseBlockValues/128 + 7, 128, 3, 50, true},
		{"more parts than blocks allow", denseBlockValues/64 + 1, 64, 8, 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := make([][]float32, tt.rows)
			for i := range rows {
				rows[i] = make([]float32, tt.dim)
				for j := range rows[i] {
					rows[i][j] = float32(rng.NormFloat64())
				}
			}
			// Duplicated rows tie: the tie rule must order them alike too.
			copy(rows[len(rows)-1], rows[0])
			v, err := newVectors(rows, tt.dim)
			if err != nil {
				t.Fatal(err)
			}
			chunks := testChunks(tt.rows)
			q := make([]float32, tt.dim)
			for j := range q {
				q[j] = float32(rng.NormFloat64())
			}
			defer func(p int) { denseParts = p }(denseParts)
			denseParts = 1
			whole := make([]float32, tt.rows)
			v.similarities(q, whole)
			wantHits, err := v.search(q, tt.depth, chunks)
			if err != nil {
				t.Fatal(err)
			}
			denseParts = tt.parts
			split := make([]float32, tt.rows)
			v.similarities(q, split)
			for i := range whole {
				if whole[i] != split[i] {
					t.Fatalf("row %d: split %v, whole %v", i, split[i], whole[i])
				}
			}
			gotHits, err := v.search(q, tt.depth, chunks)
			if err != nil {
				t.Fatal(err)
			}
			if len(gotHits) != len(wantHits) {
				t.Fatalf("%d hits split, %d whole", len(gotHits), len(wantHits))
			}
			for i := range wantHits {
				if gotHits[i] != wantHits[i] {
					t.Fatalf("hit %d: split %+v, whole %+v", i, gotHits[i], wantHits[i])
				}
			}
			if split := tt.rows*tt.dim/denseBlockValues >= 2; split != tt.wantSplits {
				t.Errorf("split %v, want %v", split, tt.wantSplits)
			}
		})
	}
}

// TestSplitParts: the product is split into one block per core, at most
// one per denseBlockValues values, and not at all while other searches
// scan.
func TestSplitParts(t *testing.T) {
	tests := []struct {
		name               string
		n, dim, parts, cpu int
		others             bool
		want               int
	}{
		{"scifact lsa-256 alone on 2 cores", 5183, 256, 0, 2, false, 2},
		{"scifact lsa-256 beside another search", 5183, 256, 0, 2, true, 1},
		{"small corpus", 240, 384, 0, 2, false, 1},
		{"many cores, few blocks", 5183, 256, 0, 64, false, 5},
		{"parts set", 100000, 256, 3, 8, false, 3},
		{"one core", 100000, 256, 0, 1, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitParts(tt.n, tt.dim, tt.parts, tt.cpu, tt.others); got != tt.want {
				t.Errorf("splitParts(%d, %d, %d, %d, %v) = %d, want %d", tt.n, tt.dim, tt.parts, tt.cpu, tt.others, got, tt.want)
			}
		})
	}
}
