package metrics_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
)

// The threshold measures on the default 0-3 fixture (see fixRanking: grades
// by rank 3 0 1 - 2; judged a3 b0 c1 e2 f2 g0; strong >= 2: a e f; exact
// >= 3: a) and on a 0-4 scale, where strong is 3 and exact 4.
func TestThresholdMeasures(t *testing.T) {
	scale4 := metrics.Options{Threshold: 1, MaxGrade: 4}
	j4 := metrics.Judgments{"a": 4, "b": 3, "c": 2, "d": 1, "e": 0}
	r4 := []string{"d", "c", "b", "a", "e"}
	tests := []struct {
		metric  string
		ranking []string
		j       metrics.Judgments
		opts    metrics.Options
		want    float64
	}{
		{"Exact_Success@1", fixRanking, fixJudgments, metrics.DefaultOptions(), 1},
		{"Strong_Success@1", []string{"b", "c", "e"}, fixJudgments, metrics.DefaultOptions(), 0},
		{"Strong_Success@3", []string{"b", "c", "e"}, fixJudgments, metrics.DefaultOptions(), 1},
		{"MRR_Strong@10", []string{"b", "d", "c", "e"}, fixJudgments, metrics.DefaultOptions(), 0.25},
		{"MRR_Strong@3", []string{"b", "d", "c", "e"}, fixJudgments, metrics.DefaultOptions(), 0},
		{"MRR_Exact@10", []string{"e", "a"}, fixJudgments, metrics.DefaultOptions(), 0.5},
		// strong judged: a e f; in the top 3 (a b c): a
		{"Recall_Strong@3", fixRanking, fixJudgments, metrics.DefaultOptions(), 1.0 / 3},
		{"Recall_Strong@10", fixRanking, fixJudgments, metrics.DefaultOptions(), 2.0 / 3},
		{"Recall_Exact@10", fixRanking, fixJudgments, metrics.DefaultOptions(), 1},
		// 0-4: ranking d1 c2 b3 a4 e0
		{"Strong_Precision@3", r4, j4, scale4, 1.0 / 3},
		{"Exact_Precision@4", r4, j4, scale4, 0.25},
		{"Exact_Success@3", r4, j4, scale4, 0},
		{"Exact_Success@4", r4, j4, scale4, 1},
		{"Strong_Success@3", r4, j4, scale4, 1},
		{"MRR_Strong@10", r4, j4, scale4, 1.0 / 3},
		{"MRR_Exact@10", r4, j4, scale4, 0.25},
		// strong (>= 3) judged: a b; b in the top 3
		{"Recall_Strong@3", r4, j4, scale4, 0.5},
		{"Recall_Exact@3", r4, j4, scale4, 0},
		// (1+2+3)/3 normalised by the top grade 4
		{"Avg_Grade@3/4", r4, j4, scale4, 0.5},
		// thresholds set explicitly: strong 2, exact 3
		{"Strong_Precision@3", r4, j4, metrics.Options{Threshold: 1, MaxGrade: 4, Strong: 2, Exact: 3}, 2.0 / 3},
		{"Recall_Exact@3", r4, j4, metrics.Options{Threshold: 1, MaxGrade: 4, Strong: 2, Exact: 3}, 0.5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/max%d", tt.metric, tt.opts.MaxGrade), func(t *testing.T) {
			if err := tt.opts.Validate(); err != nil {
				t.Fatal(err)
			}
			m, err := metrics.ParseMetric(tt.metric)
			if err != nil {
				t.Fatal(err)
			}
			if m.String() != tt.metric {
				t.Errorf("canonical name %q, want %q", m.String(), tt.metric)
			}
			if got := m.Score(tt.ranking, tt.j, tt.opts); math.Abs(got-tt.want) > eps {
				t.Errorf("%s = %.10f, want %.10f", tt.metric, got, tt.want)
			}
		})
	}
}

// The thresholded measures are the binary ones at another relevance level:
// Strong_Success@k at strong s equals Success@k with Threshold s, and so
// on, which is what makes them trec_eval's measures at -l s.
func TestThresholdMeasuresAreBinaryAtALevel(t *testing.T) {
	j := metrics.Judgments{"a": 4, "b": 3, "c": 2, "d": 1, "e": 0, "f": 4, "g": 2, "x": -1}
	rankings := [][]string{{"d", "c", "b", "a", "e"}, {"e", "x", "g", "f"}, {"a", "b", "c", "d"}, {"u", "v"}}
	pairs := [][3]string{{"Strong_Success@3", "Exact_Success@3", "Success@3"}, {"MRR_Strong@10", "MRR_Exact@10", "MRR@10"},
		{"Recall_Strong@3", "Recall_Exact@3", "Recall@3"}}
	for level := 1; level <= 4; level++ {
		for _, r := range rankings {
			for _, p := range pairs {
				strong := metrics.MustParseMetric(p[0]).Score(r, j, metrics.Options{Threshold: 1, MaxGrade: 4, Strong: level, Exact: 4})
				exact := metrics.MustParseMetric(p[1]).Score(r, j, metrics.Options{Threshold: 1, MaxGrade: 4, Strong: 1, Exact: level})
				binary := metrics.MustParseMetric(p[2]).Score(r, j, metrics.Options{Threshold: level, MaxGrade: 4})
				if strong != binary || exact != binary {
					t.Errorf("level %d %v: %s %v, %s %v, %s %v", level, r, p[0], strong, p[1], exact, p[2], binary)
				}
			}
		}
	}
}

// The default composite is defined relative to the scale: on 0-3 it is the
// composite it always was.
func TestDefaultCompositeFor(t *testing.T) {
	want3 := "0.125*NDCG@20+0.125*NDCG@50+0.125*ERR@10+0.125*Strong_Precision@10+0.125*Strong_Precision@20+0.125*Useful_Precision@50+0.125*Avg_Grade@10/3+0.125*Gain_Recall@20"
	if got := metrics.DefaultComposite.String(); got != want3 {
		t.Errorf("DefaultComposite = %s\nwant %s", got, want3)
	}
	if got := metrics.DefaultCompositeFor(3).String(); got != want3 {
		t.Errorf("DefaultCompositeFor(3) = %s", got)
	}
	if got, want := metrics.DefaultCompositeFor(4).Terms[6].Metric.String(), "Avg_Grade@10/4"; got != want {
		t.Errorf("DefaultCompositeFor(4) term 7 = %s, want %s", got, want)
	}
	// A perfect ranking on 0-4 scores 1 on every normalised term.
	j := metrics.Judgments{"a": 4}
	o := metrics.Options{Threshold: 1, MaxGrade: 4}
	c := metrics.DefaultCompositeFor(4)
	sc := metrics.NewScorecard("", c.Metrics()...)
	vals := sc.Score([]string{"a"}, j, o)
	if v := vals["Avg_Grade@10/4"]; math.Abs(v-0.1) > eps {
		t.Errorf("Avg_Grade@10/4 = %v, want 0.1", v)
	}
	if v := vals["Strong_Precision@10"]; math.Abs(v-0.1) > eps {
		t.Errorf("Strong_Precision@10 = %v, want 0.1 (grade 4 >= strong 3)", v)
	}
}

func TestDefaultStrong(t *testing.T) {
	for max, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 4, 6: 4, 10: 7} {
		if got := metrics.DefaultStrong(max); got != want {
			t.Errorf("DefaultStrong(%d) = %d, want %d", max, got, want)
		}
	}
}
