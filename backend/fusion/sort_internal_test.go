package fusion

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortTop compares sortTop and TopInto with slices.SortFunc on random inputs of
// many sizes, including heavy score ties, zeros of both signs (equal
// scores), already sorted input and patterns that unbalance a median of
// three; the whole slice stays a permutation of the input, every entry
// bit for bit (a -0 stays -0).
func TestSortTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := []struct {
		name string
		gen  func(i, n int) float64
	}{
		{"random", func(int, int) float64 { return rng.Float64() }},
		{"ties", func(int, int) float64 { return float64(rng.IntN(3)) }},
		{"ascending", func(i, _ int) float64 { return float64(i) }},
		{"descending", func(i, n int) float64 { return float64(n - i) }},
		{"constant", func(int, int) float64 { return 1 }},
		{"nan and inf", func(int, int) float64 {
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, 1}[rng.IntN(5)]
		}},
		{"signed zeros", func(int, int) float64 {
			return []float64{math.Copysign(0, -1), 0, -1, 1}[rng.IntN(4)]
		}},
		{"organ pipe", func(i, n int) float64 { return float64(min(i, n-i)) }},
		{"sawtooth", func(i, _ int) float64 { return float64(i % 7) }},
	}
	var f, g Fuser // g: TopInto's
	for _, sh := range shapes {
		for _, size := range []int{0, 1, 2, 5, 16, 17, 40, 130, 500, 3000} {
			for _, n := range []int{-1, 0, 1, 10, 20, 50, 64, 65, size} {
				t.Run(fmt.Sprintf("%s/size=%d/n=%d", sh.name, size, n), func(t *testing.T) {
					rs := make([]Ranked, size)
					for i, u := range rng.Perm(size) {
						rs[i] = Ranked{Score: sh.gen(i, size), Unit: int32(u)}
					}
					want := slices.Clone(rs)
					slices.SortStableFunc(want, func(a, b Ranked) int {
						if c := cmpScore(a.Score, b.Score); c != 0 {
							return c
						}
						return int(b.Unit) - int(a.Unit) // the tie rule: higher unit (id) first
					})
					in := slices.Clone(rs)
					k := n
					if k < 0 || k > size {
						k = size
					}
					top := g.TopInto(nil, rs, n)
					if !slices.EqualFunc(rs, in, sameRanked) {
						t.Fatalf("TopInto changed its input:\n got %v\n  in %v", rs, in)
					}
					if !slices.EqualFunc(top, want[:k], sameRanked) {
						t.Errorf("TopInto: %v, want the first %d %v", top, k, want[:k])
					}
					f.sortTop(rs, n)
					if !samePermutation(rs, in) {
						t.Fatalf("not a permutation of the input:\n got %v\n  in %v", rs, in)
					}
					if !slices.EqualFunc(rs[:k], want[:k], sameRanked) {
						t.Errorf("first %d differ:\n got %v\nwant %v", k, rs[:k], want[:k])
					}
				})
			}
		}
	}
}

// TestSortTopGuess ranks many like inputs in turn with one Fuser, as a
// replayed config ranks its queries: the ones guessTop ranks from the
// previous call's threshold, and the ones it leaves to the full ranking,
// come out as slices.SortFunc orders them, and both kinds occur.
func TestSortTopGuess(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 10, 20, guessMax} {
		var f Fuser
		guessed, ranked := 0, 0
		for q := range 300 {
			rs := hybridUnits(rng, rng.IntN(100))
			if q%50 == 49 { // now and then one of another kind
				for i := range rs {
					rs[i].Score = float64(rng.IntN(4))
				}
			}
			want := slices.Clone(rs)
			slices.SortFunc(want, func(a, b Ranked) int {
				if c := cmpScore(a.Score, b.Score); c != 0 {
					return c
				}
				return int(b.Unit) - int(a.Unit)
			})
			in := slices.Clone(rs)
			if ks := f.guessTop(rs, n); ks != nil {
				f.placeTop(rs, ks)
				guessed++
			} else {
				if !slices.Equal(rs, in) {
					t.Fatalf("n=%d query %d: guessTop failed and changed its input", n, q)
				}
				f.sortTop(rs, n)
				ranked++
			}
			if !samePermutation(rs, in) {
				t.Fatalf("n=%d query %d: not a permutation of the input", n, q)
			}
			if !slices.EqualFunc(rs[:n], want[:n], sameRanked) {
				t.Fatalf("n=%d query %d: first %d differ:\n got %v\nwant %v", n, q, n, rs[:n], want[:n])
			}
		}
		if guessed == 0 || ranked == 0 {
			t.Errorf("n=%d: %d queries ranked from a guess, %d in full: want some of each", n, guessed, ranked)
		}
	}
}

// TestBucketSort: bucketSort orders entries as ahead does whatever their
// spread — one score, ties, a narrow band, scores across zero and the
// infinities — and returns a permutation of its input.
func TestBucketSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	gens := map[string]func() float64{
		"one score":   func() float64 { return 0.25 },
		"ties":        func() float64 { return float64(rng.IntN(3)) },
		"narrow band": func() float64 { return 0.0163 + rng.Float64()*1e-9 },
		"wide":        func() float64 { return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20)) },
		"infinities": func() float64 {
			return []float64{math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1}[rng.IntN(5)]
		},
	}
	var f Fuser
	for name, gen := range gens {
		for _, size := range []int{1, 2, 17, 40, 64} {
			ks := make([]keyed, size)
			for i := range ks {
				ks[i] = keyed{key: orderKey(gen()), unit: int32(rng.IntN(1000)), at: int32(i)}
			}
			want := slices.Clone(ks)
			slices.SortFunc(want, func(a, b keyed) int { return ahead(b, a) - ahead(a, b) })
			got := f.bucketSort(slices.Clone(ks))
			// Units may repeat here: compare the order of (key, unit).
			for i := range got {
				if got[i].key != want[i].key || got[i].unit != want[i].unit {
					t.Fatalf("%s, %d entries: place %d holds %v, want %v", name, size, i, got[i], want[i])
				}
			}
			seen := map[int32]bool{}
			for _, k := range got {
				seen[k.at] = true
			}
			if len(seen) != size {
				t.Fatalf("%s, %d entries: %d distinct entries out, want a permutation", name, size, len(seen))
			}
		}
	}
}

// cmpScore orders scores descending with NaN last, independently of before.
func cmpScore(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(b, a)
}

func sameRanked(a, b Ranked) bool {
	return a.Unit == b.Unit && (a.Score == b.Score || math.IsNaN(a.Score) && math.IsNaN(b.Score))
}

// samePermutation reports whether a and b hold the same entries, bit for
// bit, in any order.
func samePermutation(a, b []Ranked) bool {
	type entry struct {
		bits uint64
		unit int32
	}
	count := map[entry]int{}
	for _, r := range a {
		count[entry{math.Float64bits(r.Score), r.Unit}]++
	}
	for _, r := range b {
		count[entry{math.Float64bits(r.Score), r.Unit}]--
	}
	for _, c := range count {
		if c != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// TestOrderKey: the keys order scores as before does — higher first, -0
// equal to +0, NaN below -Inf.
func TestOrderKey(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for _, a := range vals {
		for _, b := range vals {
			ra, rb := Ranked{Score: a, Unit: 1}, Ranked{Score: b, Unit: 0}
			if got, want := orderKey(a) > orderKey(b) || orderKey(a) == orderKey(b), before(ra, rb); got != want {
				t.Errorf("%v vs %v: key says ahead %v, before %v", a, b, got, want)
			}
		}
	}
}

// BenchmarkSortTop ranks the best n of the units RRF fuses from two
// lists of 100 that share 30 documents (as a hybrid search fuses), in
// unit order: a search's k, the recorded top and a deep cut.
//
//	go test -run '^$' -bench SortTop -count 10 ./backend/fusion
func BenchmarkSortTop(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	in := hybridUnits(rng, 30)
	for _, n := range []int{10, 20, 100} {
		b.Run(fmt.Sprintf("units=%d/n=%d", len(in), n), func(b *testing.B) {
			var f Fuser
			rs := slices.Clone(in)
			for b.Loop() {
				copy(rs, in)
				f.sortTop(rs, n)
			}
		})
	}
}

// BenchmarkSortTopQueries is BenchmarkSortTop over 64 queries in turn,
// each fusing two lists of 100 that share between 10 and 60 documents:
// one op ranks one query's best n, as a replayed config ranks its queries.
//
//	go test -run '^$' -bench SortTopQueries -count 10 ./backend/fusion
func BenchmarkSortTopQueries(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	queries := make([][]Ranked, 64)
	for q := range queries {
		queries[q] = hybridUnits(rng, 10+rng.IntN(51))
	}
	for _, n := range []int{10, 20, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var f Fuser
			rs := make([]Ranked, 0, 200)
			q := 0
			for b.Loop() {
				rs = append(rs[:0], queries[q]...)
				f.sortTop(rs, n)
				q = (q + 1) % len(queries)
			}
		})
	}
}

// hybridUnits returns the units RRF (k = 60, weights 0.3 and 0.7) fuses
// from two lists of 100 sharing shared documents, in unit order.
func hybridUnits(rng *rand.Rand, shared int) []Ranked {
	const depth = 100
	units := 2*depth - shared
	score := make([]float64, units)
	for list, first := range []int{0, depth - shared} { // the second list's first units are the first's last
		for rank, u := range rng.Perm(depth) {
			score[first+u] += (0.3 + 0.4*float64(list)) / (60 + float64(rank+1))
		}
	}
	in := make([]Ranked, units)
	for i, u := range rng.Perm(units) { // units are numbered in id order, not by list
		in[i] = Ranked{Score: score[u], Unit: int32(i)}
	}
	return in
}

// TestCountBeforeAndAnyNaN: CountBefore counts what Before says, ties
// included, and AnyNaN finds a NaN wherever it stands.
func TestCountBeforeAndAnyNaN(t *testing.T) {
	src := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{0, 1, 2, 17, 200} {
		rs := make([]Ranked, n)
		for i := range rs {
			rs[i] = Ranked{Unit: int32(i), Score: float64(src.IntN(6)) / 4} // many ties
		}
		for _, u := range rs {
			want := 0
			for _, v := range rs {
				if v.Before(u) {
					want++
				}
			}
			if got := CountBefore(rs, u); got != want {
				t.Fatalf("n %d unit %d: CountBefore %d, Before counts %d", n, u.Unit, got, want)
			}
		}
		if AnyNaN(rs) {
			t.Fatalf("n %d: AnyNaN without a NaN", n)
		}
		for i := range rs {
			keep := rs[i].Score
			rs[i].Score = math.NaN()
			if !AnyNaN(rs) {
				t.Fatalf("n %d: AnyNaN missed the NaN at %d", n, i)
			}
			rs[i].Score = keep
		}
	}
}
