package fusion_test

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

// TestFuserWeaviateFormula checks that the in-process fuser under
// FormulaWeaviate ranks and scores exactly as WeaviateHybrid: float32
// scores, Weaviate's tie rule (secondary value, then UUID), alpha 0 and 1
// dropping a leg, a one-result leg, and the depth cut.
func TestFuserWeaviateFormula(t *testing.T) {
	// UUIDs order the documents unlike their ids, so a tie broken by id
	// (the project's rule) would differ from one broken by UUID.
	c := func(uuid, doc string, s float64) fusion.Candidate {
		return fusion.Candidate{ID: uuid, DocID: doc, Score: s}
	}
	dense := []fusion.Candidate{c("u3", "a", 0.9), c("u1", "b", 0.8), c("u2", "c", 0.7), c("u4", "d", 0.1)}
	bm25 := []fusion.Candidate{c("u2", "c", 7), c("u4", "d", 5), c("u5", "e", 5), c("u3", "a", 1)}
	one := []fusion.Candidate{c("u5", "e", 3)}
	// A full tie (score and secondary value): Weaviate ranks u1 (p) first,
	// the project's rule (document id descending) q.
	tieDense, tieKw := []fusion.Candidate{c("u9", "q", 0.5)}, []fusion.Candidate{c("u1", "p", 0.5)}
	tests := []struct {
		name       string
		method     fusion.Method
		alpha      float64
		depth      int
		dense, kw  []fusion.Candidate
		wantLength int
	}{
		{"ranked half (exact ties)", fusion.RRF, 0.5, 100, dense, bm25, 5},
		{"relative 0.3", fusion.Linear, 0.3, 100, dense, bm25, 5},
		{"ranked alpha 0", fusion.RRF, 0, 100, dense, bm25, 4},
		{"relative alpha 1", fusion.Linear, 1, 100, dense, bm25, 4},
		{"relative one-result leg", fusion.Linear, 0.75, 100, dense, one, 5},
		{"ranked full tie by UUID", fusion.RRF, 0.5, 100, tieDense, tieKw, 2},
		{"ranked depth 2", fusion.RRF, 0.75, 2, dense, bm25, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft, err := fusion.WeaviateFusionType(tt.method)
			if err != nil {
				t.Fatal(err)
			}
			cut := func(l []fusion.Candidate) []fusion.Candidate { return l[:min(len(l), tt.depth)] }
			want := fusion.WeaviateHybrid(ft, tt.alpha, cut(tt.dense), cut(tt.kw))
			s := fusion.Settings{Formula: fusion.FormulaWeaviate, Fusion: fusion.Params{Method: tt.method, Depth: tt.depth,
				Weights: map[string]float64{"bm25": 1 - tt.alpha, "dense": tt.alpha}}}
			pl := fusion.Prepare(map[string][]fusion.Candidate{"dense": tt.dense, "bm25": tt.kw})
			var f fusion.Fuser
			docs := pl.DocIDs(false)
			var got []fusion.Result
			for _, r := range f.HitsInto(nil, pl, s, -1) {
				got = append(got, fusion.Result{ID: docs[r.Unit], DocID: docs[r.Unit], Score: r.Score})
			}
			for i := range want {
				want[i].ID = want[i].DocID // units are documents
			}
			if tt.name == "ranked full tie by UUID" && got[0].DocID != "p" {
				t.Errorf("full tie: %v, want p (UUID u1) first", got)
			}
			if len(got) != tt.wantLength || !reflect.DeepEqual(got, want) {
				t.Fatalf("fuser:\n%v\nWeaviateHybrid:\n%v", got, want)
			}
			if top := f.HitsInto(nil, pl, s, 2); len(top) != min(2, len(want)) || docs[top[0].Unit] != want[0].DocID {
				t.Errorf("top 2: %v, want the first of %v", top, want)
			}
			// ScoreSettingsInto: the same scores, in unit order.
			byDoc := map[string]float64{}
			for _, r := range want {
				byDoc[r.DocID] = r.Score
			}
			all := f.ScoreSettingsInto(nil, pl, s)
			for i, r := range all {
				if i > 0 && all[i-1].Unit >= r.Unit || byDoc[docs[r.Unit]] != r.Score {
					t.Errorf("ScoreSettingsInto %v, want %v in unit order", all, want)
					break
				}
			}
		})
	}
}

// TestWeaviateAlphaRoundTrip checks that the weights {bm25: 1 - a,
// dense: a} give a back exactly, so that a replayed trial's alpha is the
// alpha sent live.
func TestWeaviateAlphaRoundTrip(t *testing.T) {
	for i := 0; i <= 1000; i++ {
		for _, a := range []float64{float64(i) / 1000, float64(i) / 997, 1 / (1 + float64(i))} {
			if a > 1 {
				continue
			}
			p := fusion.Params{Weights: map[string]float64{"bm25": 1 - a, "dense": a}}
			if got := fusion.WeaviateAlpha(p); got != a {
				t.Fatalf("alpha %v came back as %v", a, got)
			}
		}
	}
	tests := []struct {
		weights map[string]float64
		want    float64
	}{
		{nil, 0.5}, {map[string]float64{"bm25": 3, "dense": 1}, 0.25}, {map[string]float64{"bm25": 0}, 1}, {map[string]float64{"bm25": 0, "dense": 0}, 0},
	}
	for _, tt := range tests {
		if got := fusion.WeaviateAlpha(fusion.Params{Weights: tt.weights}); got != tt.want {
			t.Errorf("WeaviateAlpha(%v) = %v, want %v", tt.weights, got, tt.want)
		}
	}
}

// TestFuserFormulaErrors checks what the fuser refuses under another
// engine's formula: a method Weaviate lacks, an unknown formula.
func TestFuserFormulaErrors(t *testing.T) {
	if _, err := fusion.WeaviateFusionType(fusion.CombSUM); err == nil {
		t.Error("combsum: no error")
	}
	pl := fusion.Prepare(map[string][]fusion.Candidate{"bm25": {{ID: "a", Score: 1}}})
	for _, s := range []fusion.Settings{
		{Formula: fusion.FormulaWeaviate, Fusion: fusion.Params{Method: fusion.CombMNZ}},
		{Formula: "qdrant"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", s)
				}
			}()
			var f fusion.Fuser
			f.HitsInto(nil, pl, s, -1)
		}()
	}
}
