package fusion_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// synthetic returns two lists of n chunk candidates over about 2n/3
// documents with 1 to 3 chunks each, so that the lists overlap and
// documents repeat.
func synthetic(seed uint64, n int) map[string][]fusion.Candidate {
	rng := rand.New(rand.NewPCG(seed, 1))
	docs := max(1, 2*n/3)
	list := func(base float64) []fusion.Candidate {
		out := make([]fusion.Candidate, n)
		s := base
		for i := range out {
			d := rng.IntN(docs)
			out[i] = fusion.Candidate{
				ID:    fmt.Sprintf("d%04d#%d", d, rng.IntN(3)),
				DocID: fmt.Sprintf("d%04d", d),
				Score: s,
				Rank:  i + 1,
			}
			if rng.IntN(4) > 0 { // leave some ties
				s -= rng.Float64() * base / float64(n)
			}
		}
		return out
	}
	return map[string][]fusion.Candidate{"bm25": list(20), "dense": list(1)}
}

func paramGrid() []fusion.Params {
	var ps []fusion.Params
	for _, m := range fusion.Methods {
		for _, n := range fusion.Normalizations {
			for _, depth := range []int{0, 7, 40} {
				for _, w := range []float64{0, 0.3, 1} {
					for _, k := range []float64{20, 60} {
						ps = append(ps, fusion.Params{Method: m, Normalization: n, Depth: depth, K: k,
							Weights: map[string]float64{"dense": w}})
					}
				}
			}
		}
	}
	return ps
}

// TestFuserMatchesFuse checks that one Fuser reused across params (RRF
// weights, k and depths changing from one call to the next), modes and
// list sets ranks bit-for-bit like a fresh Fuse, and that FuseTopInto
// is the prefix of the full ranking.
func TestFuserMatchesFuse(t *testing.T) {
	var f fusion.Fuser
	var buf []fusion.Result
	for seed := uint64(1); seed <= 4; seed++ {
		lists := synthetic(seed, 20+int(seed)*10)
		pl := fusion.Prepare(lists)
		for _, p := range paramGrid() {
			for _, passage := range []bool{false, true} {
				name := fmt.Sprintf("seed=%d/%s/%s/depth=%d/w=%v/passage=%v", seed, p.Method, p.Normalization, p.Depth, p.Weights["dense"], passage)
				want := fusion.Fuse(lists, p, passage)
				buf = f.FuseInto(buf, pl, p, passage)
				if !reflect.DeepEqual(buf, want) {
					t.Fatalf("%s: Fuser differs from Fuse", name)
				}
				units := f.RankInto(nil, pl, p, passage, -1)
				for i, u := range units {
					if pl.IDs(passage)[u.Unit] != want[i].ID || pl.DocIDs(passage)[u.Unit] != want[i].DocID || u.Score != want[i].Score {
						t.Fatalf("%s: unit ranking %d = %v, want %v", name, i, u, want[i])
					}
				}
				top := f.FuseTopInto(nil, pl, p, passage, 5)
				if !reflect.DeepEqual(top, want[:min(5, len(want))]) {
					t.Fatalf("%s: top 5 %v, want %v", name, top, want[:min(5, len(want))])
				}
			}
		}
	}
}

// TestFuseDeterministic fuses the same lists many times (Go randomizes
// map iteration) and requires identical bits and a sorted ranking.
func TestFuseDeterministic(t *testing.T) {
	lists := synthetic(7, 100)
	for _, p := range paramGrid() {
		first := fusion.Fuse(lists, p, false)
		for i := 0; i < 10; i++ {
			if got := fusion.Fuse(lists, p, false); !reflect.DeepEqual(got, first) {
				t.Fatalf("%+v: run %d differs", p, i)
			}
		}
		for i := 1; i < len(first); i++ {
			a, b := first[i-1], first[i]
			if a.Score < b.Score || (a.Score == b.Score && a.ID <= b.ID) {
				t.Fatalf("%+v: results %d and %d out of order: %v %v", p, i-1, i, a, b)
			}
		}
	}
}

func TestPrepareRetrievers(t *testing.T) {
	pl := fusion.Prepare(map[string][]fusion.Candidate{"dense": nil, "bm25": nil, "colbert": nil})
	if got, want := pl.Retrievers(), []string{"bm25", "colbert", "dense"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestFuseReplayAfterJSON is the tuner's contract: candidate lists sent
// through JSON (as POST /search returns them) fuse to exactly the bits the
// engine computed from the originals.
func TestFuseReplayAfterJSON(t *testing.T) {
	lists := synthetic(9, 100)
	for name, l := range lists { // scores with long mantissas
		for i := range l {
			l[i].Score = l[i].Score/3 + 1e-9*float64(i)
		}
		lists[name] = l
	}
	data, err := json.Marshal(lists)
	if err != nil {
		t.Fatal(err)
	}
	var replayed map[string][]fusion.Candidate
	if err := json.Unmarshal(data, &replayed); err != nil {
		t.Fatal(err)
	}
	for _, p := range paramGrid() {
		for _, passage := range []bool{false, true} {
			live, replay := fusion.Fuse(lists, p, passage), fusion.Fuse(replayed, p, passage)
			if !reflect.DeepEqual(live, replay) {
				t.Fatalf("%+v passage=%v: replay after JSON differs from live", p, passage)
			}
		}
	}
}
