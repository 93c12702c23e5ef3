package metrics_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

func TestScorecardMatchesSingleMetrics(t *testing.T) {
	sc, err := metrics.ParseScorecard("all", allMetrics)
	if err != nil {
		t.Fatal(err)
	}
	o := metrics.DefaultOptions()
	got := sc.Score(fixRanking, fixJudgments, o)
	if len(got) != len(allMetrics) {
		t.Fatalf("got %d values, want %d", len(got), len(allMetrics))
	}
	for _, n := range allMetrics {
		want := metrics.MustParseMetric(n).Score(fixRanking, fixJudgments, o)
		if got[n] != want {
			t.Errorf("%s: scorecard %v, alone %v", n, got[n], want)
		}
	}
	// The prepared-query path gives the same numbers.
	q := metrics.NewQuery(fixJudgments, o)
	vals := sc.ScoreQuery(nil, fixRanking, q)
	for i, n := range sc.Names() {
		if vals[i] != got[n] {
			t.Errorf("ScoreQuery %s = %v, want %v", n, vals[i], got[n])
		}
	}
	// A literal Scorecard (no constructor) must see deep enough too.
	lit := metrics.Scorecard{Metrics: []metrics.Metric{metrics.MustParseMetric("AP")}}
	if v := lit.ScoreInto(nil, fixRanking, fixJudgments, o)[0]; v != got["AP"] {
		t.Errorf("literal scorecard AP = %v, want %v", v, got["AP"])
	}
}

func TestParseScorecardErrors(t *testing.T) {
	_, err := metrics.ParseScorecard("mine", []string{"NDCG@10", "bogus", "ndcg@10", "P@0"})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`scorecard "mine": metrics[1]: metric "bogus"`,
		`scorecard "mine": metrics[2]: "NDCG@10" listed twice`, `metrics[3]: metric "P@0"`} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestDefaultComposite(t *testing.T) {
	// The fixture's values (see metric_test.go): NDCG@20 = NDCG@50 =
	// 0.750756, ERR@10 = 0.888411, Strong_Precision@10 = 2/10,
	// Strong_Precision@20 = 2/20, Useful_Precision@50 = 3/50,
	// Avg_Grade@10/3 = 6/10/3, Gain_Recall@20 = 6/8.
	want := (2*0.750756001456565 + 0.8884114583333333 + 0.2 + 0.1 + 0.06 + 0.2 + 0.75) / 8
	o := metrics.DefaultOptions()
	if got := metrics.DefaultComposite.Score(fixRanking, fixJudgments, o); math.Abs(got-want) > eps {
		t.Errorf("Score = %v, want %v", got, want)
	}
	sc := metrics.NewScorecard("default", metrics.DefaultComposite.Metrics()...)
	v, err := metrics.DefaultComposite.Value(sc.Score(fixRanking, fixJudgments, o))
	if err != nil || math.Abs(v-want) > eps {
		t.Errorf("Value = %v, %v; want %v", v, err, want)
	}
	if _, err := metrics.DefaultComposite.Value(map[string]float64{}); err == nil {
		t.Error("Value with missing metrics: no error")
	}
	wantStr := "0.125*NDCG@20+0.125*NDCG@50+0.125*ERR@10+0.125*Strong_Precision@10+0.125*Strong_Precision@20+" +
		"0.125*Useful_Precision@50+0.125*Avg_Grade@10/3+0.125*Gain_Recall@20"
	if s := metrics.DefaultComposite.String(); s != wantStr {
		t.Errorf("String() = %q", s)
	}
	back, err := metrics.ParseComposite(wantStr)
	if err != nil || back.String() != wantStr {
		t.Errorf("round trip: %v, %v", back, err)
	}
}

func TestParseComposite(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"0.5*NDCG@10+0.5*Recall@20", "0.5*NDCG@10+0.5*Recall@20", ""},
		{" 2 * ndcg@10 + AP ", "2*NDCG@10+1*AP", ""},
		{"", "", "empty"},
		{"x*NDCG@10", "", `term 1: weight must be a number (got "x")`},
		{"NDCG@10+Foo", "", `term 2: metric "Foo"`},
		{"NDCG@10+ndcg@10", "", `"NDCG@10" listed twice`},
		{"1*AP+-1*P@5", "", "weights sum to zero"},
		{"1e308*NDCG@10+1e308*AP", "", "more than 1e+06: scale them down"},
		{"1e999*NDCG@10", "", `weight must be a number (got "1e999")`},
		{"600000*NDCG@10+-500000*AP", "", "sum to 1.1e+06, more than 1e+06"},
		{"500000*NDCG@10+500000*AP", "500000*NDCG@10+500000*AP", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := metrics.ParseComposite(tt.in)
			if tt.err != "" {
				if err == nil || !contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.String() != tt.want {
				t.Errorf("String() = %q, want %q", c.String(), tt.want)
			}
		})
	}
}

func TestCompositeFromWeights(t *testing.T) {
	c, err := metrics.CompositeFromWeights(map[string]float64{"Recall@20": 0.25, "NDCG@10": 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "0.75*NDCG@10+0.25*Recall@20"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// NDCG@10 of the fixture = NDCG@5 (k past the end, ideal cut at 10 =
	// all 4 positives); Recall@20 = 3/4.
	want := 0.75*0.750756001456565 + 0.25*0.75
	if got := c.Score(fixRanking, fixJudgments, metrics.DefaultOptions()); math.Abs(got-want) > eps {
		t.Errorf("Score = %v, want %v", got, want)
	}
	if _, err := metrics.CompositeFromWeights(map[string]float64{"nope": 1}); err == nil ||
		!contains(err.Error(), `composite weights["nope"]`) {
		t.Errorf("error = %v", err)
	}
}

func FuzzParseComposite(f *testing.F) {
	f.Add("0.5*NDCG@10+0.5*Recall@20")
	f.Add("AP+1e3*P@5")
	f.Add("*+")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := metrics.ParseComposite(s)
		if err != nil {
			return
		}
		back, err := metrics.ParseComposite(c.String())
		if err != nil || back.String() != c.String() {
			t.Fatalf("%q -> %q -> %v, %v", s, c.String(), back, err)
		}
	})
}

// randomQuery draws judgments over a universe of n documents and a ranking
// of up to 2n ids, duplicates and unjudged ids included.
func randomQuery(rng *rand.Rand, n int) ([]string, metrics.Judgments) {
	j := metrics.Judgments{}
	for i := range n {
		if rng.IntN(3) > 0 {
			j["d"+strconv.Itoa(i)] = rng.IntN(4)
		}
	}
	ranking := make([]string, rng.IntN(2*n+1))
	for i := range ranking {
		ranking[i] = "d" + strconv.Itoa(rng.IntN(n+n/2))
	}
	return ranking, j
}

func TestPropertyBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	names := append(slices.Clone(allMetrics), "NDCG@1", "ERR@1", "P@1", "AP@100", "Recall@100", "Judged@1",
		"Avg_Grade@3/3", "Gain_Recall@100", "NDCG_exp@100", "F1@100")
	sc, err := metrics.ParseScorecard("props", names)
	if err != nil {
		t.Fatal(err)
	}
	o := metrics.DefaultOptions()
	for i := range 2000 {
		ranking, j := randomQuery(rng, 1+rng.IntN(40))
		for name, v := range sc.Score(ranking, j, o) {
			if !(v >= 0 && v <= 1+eps) {
				t.Fatalf("query %d: %s = %v outside [0,1] (ranking %v, judgments %v)", i, name, v, ranking, j)
			}
		}
	}
}

func TestPropertyPerfectRanking(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	o := metrics.DefaultOptions()
	for i := range 500 {
		_, j := randomQuery(rng, 2+rng.IntN(40))
		// The ideal ranking: judged documents by grade, best first.
		ideal := make([]string, 0, len(j))
		for d := range j {
			ideal = append(ideal, d)
		}
		slices.SortFunc(ideal, func(a, b string) int {
			if j[a] != j[b] {
				return j[b] - j[a]
			}
			return compare(a, b)
		})
		numRel, numPos := 0, 0
		for _, g := range j {
			if g >= o.Threshold {
				numRel++
			}
			if g > 0 {
				numPos++
			}
		}
		if numRel == 0 {
			continue
		}
		ones := []string{"NDCG", "NDCG_exp@5", "NDCG@3", "AP", "R-Precision", "MRR@1", "Success@1",
			"Recall@" + strconv.Itoa(numRel), "P@" + strconv.Itoa(numRel), "Gain_Recall@" + strconv.Itoa(numPos),
			"Judged@" + strconv.Itoa(len(ideal))}
		for _, name := range ones {
			if v := metrics.MustParseMetric(name).Score(ideal, j, o); math.Abs(v-1) > eps {
				t.Fatalf("query %d: perfect ranking has %s = %v, want 1 (judgments %v)", i, name, v, j)
			}
		}
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
