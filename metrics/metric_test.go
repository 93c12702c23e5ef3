package metrics_test

import (
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// The fixture query. The ranking repeats "a" (removed: first occurrence
// wins), so it scores as a b c d e with grades 3 0 1 - 2 ("d" unjudged).
// Judged: a3 b0 c1 e2 f2 g0. Threshold 1: relevant a c e f, R = 4.
// Sum of judged grades = 3+0+1+2+2+0 = 8. Ideal grades: 3 2 2 1 0 0.
// Discounts 1/log2(i+1): 1, 0.63093, 0.5, 0.43068, 0.38685.
var (
	fixRanking   = []string{"a", "b", "c", "a", "d", "e"}
	fixJudgments = metrics.Judgments{"a": 3, "b": 0, "c": 1, "e": 2, "f": 2, "g": 0}
)

const eps = 1e-9

func TestMetricHandComputed(t *testing.T) {
	tests := []struct {
		metric  string
		ranking []string
		opts    *metrics.Options
		want    float64
	}{
		// DCG@3 = 3 + 0 + 1*0.5 = 3.5; IDCG@3 = 3 + 2*0.63093 + 2*0.5 = 5.26186
		{"NDCG@3", nil, nil, 3.5 / (3 + 2/math.Log2(3) + 1)},
		// DCG@5 = 3.5 + 2*0.38685 = 4.27371; IDCG@5 = 5.26186 + 1*0.43068
		{"NDCG@5", nil, nil, (3.5 + 2/math.Log2(6)) / (4 + 2/math.Log2(3) + 1/math.Log2(5))},
		// k beyond the ranking: DCG as @5, ideal over all 4 positive grades
		{"NDCG@20", nil, nil, 0.750756001456565},
		// gains 2^g-1: 7 0 1; DCG = 7 + 0.5; ideal 7 3 3: 7 + 3*0.63093 + 3*0.5
		{"NDCG_exp@3", nil, nil, 7.5 / (7 + 3/math.Log2(3) + 1.5)},
		// R = (2^g-1)/8: 7/8, 0, 1/8, 0, 3/8.
		// ERR = 7/8 + (1/8)(1/8)/3 + (1/8)(7/8)(3/8)/5 = 0.875 + 1/192 + 21/2560
		{"ERR@10", nil, nil, 0.875 + 1.0/192 + 21.0/2560},
		// gmax 4 (gdeval): R = 7/16, 0, 1/16, 0, 3/16;
		// ERR = 7/16 + (9/16)(1/16)/3 + (9/16)(15/16)(3/16)/5
		{"ERR@10", nil, &metrics.Options{Threshold: 1, MaxGrade: 4}, 7.0/16 + 9.0/768 + 405.0/20480},
		// relevant in top 3: a c
		{"P@3", nil, nil, 2.0 / 3},
		// k > length: 3 relevant / 10
		{"P@10", nil, nil, 0.3},
		// threshold 2: only a in the top 3
		{"P@3", nil, &metrics.Options{Threshold: 2, MaxGrade: 3}, 1.0 / 3},
		{"Recall@3", nil, nil, 2.0 / 4},
		{"Recall@10", nil, nil, 3.0 / 4},
		// threshold 2: R = 3 (a e f); a and e retrieved
		{"Recall@10", nil, &metrics.Options{Threshold: 2, MaxGrade: 3}, 2.0 / 3},
		// P = 2/3, R = 1/2: 2PR/(P+R) = (2/3)/(7/6) = 4/7
		{"F1@3", nil, nil, 4.0 / 7},
		{"MRR@10", nil, nil, 1},
		// first relevant (c) at rank 3
		{"MRR@10", []string{"b", "d", "c"}, nil, 1.0 / 3},
		{"MRR@2", []string{"b", "d", "c"}, nil, 0},
		// relevant at ranks 1, 3, 5: (1/1 + 2/3 + 3/5) / 4
		{"AP", nil, nil, (1 + 2.0/3 + 3.0/5) / 4},
		{"AP@3", nil, nil, (1 + 2.0/3) / 4},
		// top R=4: a b c d -> 2 relevant / 4
		{"R-Precision", nil, nil, 0.5},
		{"Success@1", nil, nil, 1},
		{"Success@2", []string{"b", "d", "c"}, nil, 0},
		{"Success@3", []string{"b", "d", "c"}, nil, 1},
		// judged in top 5: a b c e (d is not) -> 4/5; @10 divides by 10
		{"Judged@5", nil, nil, 0.8},
		{"Judged@10", nil, nil, 0.4},
		// grade >= 3: a
		{"Exact_Precision@5", nil, nil, 0.2},
		// grade >= 2: a e
		{"Strong_Precision@5", nil, nil, 0.4},
		// grade >= 1: a c e
		{"Useful_Precision@5", nil, nil, 0.6},
		// (3+0+1+0+2)/5
		{"Avg_Grade@5", nil, nil, 1.2},
		{"Avg_Grade@5/3", nil, nil, 0.4},
		{"Avg_Grade@10/3", nil, nil, 6.0 / 10 / 3},
		// (3+0+1)/8
		{"Gain_Recall@3", nil, nil, 0.5},
		// (3+0+1+0+2)/8; without duplicate removal it would be (3+0+1+3+0)/8
		{"Gain_Recall@5", nil, nil, 0.75},
		// no cutoff: precision over the 5 unique documents
		{"P", nil, nil, 3.0 / 5},
	}
	for _, tt := range tests {
		name := tt.metric
		if tt.ranking != nil {
			name += "/other-ranking"
		}
		if tt.opts != nil {
			name += "/options"
		}
		t.Run(name, func(t *testing.T) {
			m, err := metrics.ParseMetric(tt.metric)
			if err != nil {
				t.Fatal(err)
			}
			r := tt.ranking
			if r == nil {
				r = fixRanking
			}
			o := metrics.DefaultOptions()
			if tt.opts != nil {
				o = *tt.opts
			}
			if got := m.Score(r, fixJudgments, o); math.Abs(got-tt.want) > eps {
				t.Errorf("%s = %.10f, want %.10f", tt.metric, got, tt.want)
			}
		})
	}
}

// allMetrics is one metric of every kind.
var allMetrics = []string{"NDCG@10", "NDCG_exp@10", "ERR@10", "P@10", "Recall@10", "F1@10", "MRR@10",
	"AP", "R-Precision", "Success@10", "Judged@10", "Exact_Precision@10", "Strong_Precision@10",
	"Useful_Precision@10", "Avg_Grade@10/3", "Gain_Recall@10", "NDCG", "AP@5"}

func TestEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		ranking []string
		j       metrics.Judgments
		want    map[string]float64 // metrics not listed must be 0
	}{
		{"empty ranking", nil, fixJudgments, nil},
		{"no judgments", []string{"a", "b"}, nil, nil},
		// Only grade-0 judgments: nothing relevant, but the top is judged.
		{"no relevant documents", []string{"a", "b"}, metrics.Judgments{"a": 0, "b": 0},
			map[string]float64{"Judged@10": 0.2}},
		// All duplicates of one relevant document: it counts once.
		{"duplicates", []string{"x", "x", "x"}, metrics.Judgments{"x": 3},
			map[string]float64{"NDCG@10": 1, "NDCG_exp@10": 1, "ERR@10": 7.0 / 8, "P@10": 0.1,
				"Recall@10": 1, "F1@10": 2 * 0.1 / 1.1, "MRR@10": 1, "AP": 1, "R-Precision": 1,
				"Success@10": 1, "Judged@10": 0.1, "Exact_Precision@10": 0.1, "Strong_Precision@10": 0.1,
				"Useful_Precision@10": 0.1, "Avg_Grade@10/3": 0.1, "Gain_Recall@10": 1, "NDCG": 1, "AP@5": 1}},
		// Negative grades count as 0 but as judged.
		{"negative grade", []string{"n"}, metrics.Judgments{"n": -2}, map[string]float64{"Judged@10": 0.1}},
	}
	sc, err := metrics.ParseScorecard("all", allMetrics)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sc.Score(tt.ranking, tt.j, metrics.DefaultOptions())
			for _, name := range allMetrics {
				if math.Abs(got[name]-tt.want[name]) > eps {
					t.Errorf("%s = %v, want %v", name, got[name], tt.want[name])
				}
			}
		})
	}
}

func TestParseMetric(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"NDCG@20", "NDCG@20"},
		{"ndcg@20", "NDCG@20"},
		{"nDCG_exp@5", "NDCG_exp@5"},
		{"ERR@10", "ERR@10"},
		{"Avg_Grade@10/3", "Avg_Grade@10/3"},
		{"Avg_Grade@10/1", "Avg_Grade@10"},
		{"Avg_Grade@10/2.5", "Avg_Grade@10/2.5"},
		{"MRR@10", "MRR@10"},
		{"Recall@3", "Recall@3"},
		{"AP", "AP"},
		{"MAP", "AP"},
		{"Precision@5", "P@5"},
		{"R-Precision", "R-Precision"},
		{" Gain_Recall@20 ", "Gain_Recall@20"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, err := metrics.ParseMetric(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if m.String() != tt.want {
				t.Errorf("String() = %q, want %q", m.String(), tt.want)
			}
		})
	}
}

func TestParseMetricErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"BLEU@4", `metric "BLEU@4": unknown measure "BLEU"`},
		{"NDCG@0", `cutoff after @ must be a positive integer (got "0")`},
		{"NDCG@x", `cutoff after @ must be a positive integer (got "x")`},
		{"P@10/3", `only Avg_Grade takes a divisor`},
		{"Avg_Grade@10/0", `divisor after / must be a positive number (got "0")`},
		{"Avg_Grade@10/", `divisor after / must be a positive number (got "")`},
		{"R-Precision@5", `R-Precision takes no cutoff`},
		{"", `unknown measure ""`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := metrics.ParseMetric(tt.in)
			if err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func FuzzParseMetric(f *testing.F) {
	for _, s := range append(allMetrics, "Avg_Grade@10/2.5", "x@", "P@-1", "/3") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := metrics.ParseMetric(s)
		if err != nil {
			return
		}
		back, err := metrics.ParseMetric(m.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", m.String(), s, err)
		}
		if back != m {
			t.Fatalf("%q -> %+v -> %q -> %+v", s, m, m.String(), back)
		}
	})
}
