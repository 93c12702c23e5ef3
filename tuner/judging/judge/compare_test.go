package judge_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// TestCompare checks which judges are compared, against which reference,
// and that people's labels join the reference without overriding gold.
func TestCompare(t *testing.T) {
	gold := map[string]map[string]int{"q1": {"d1": 2}}
	l := func(judgeName, source, q, d string, g int) labels.Label {
		return labels.Label{Dataset: "x", Query: q, Doc: d, Grade: g, Judge: judgeName, Source: source}
	}
	tests := []struct {
		name      string
		ls        []labels.Label
		only      string
		reference string
		judges    []string
		pairs     []int
		exact     float64 // of the first report, when > 0
	}{
		{name: "no labels", reference: "gold"},
		{name: "no llm labels", ls: []labels.Label{l("ann", labels.SourceHuman, "q1", "d2", 1)}, reference: "gold/human"},
		{name: "llm judges sorted", ls: []labels.Label{
			l("m2", labels.SourceLLM, "q1", "d1", 2), l("m1", labels.SourceLLM, "q1", "d1", 0), l("m1", labels.SourceLLM, "q9", "d9", 1),
		}, reference: "gold", judges: []string{"m1", "m2"}, pairs: []int{1, 1}},
		{name: "human joins reference, gold wins", ls: []labels.Label{
			l("ann", labels.SourceHuman, "q1", "d1", 0), l("ann", labels.SourceHuman, "q1", "d2", 1),
			l("m1", labels.SourceLLM, "q1", "d1", 2), l("m1", labels.SourceLLM, "q1", "d2", 1),
		}, reference: "gold/human", judges: []string{"m1"}, pairs: []int{2}, exact: 1},
		{name: "named judge of any source", only: "ann", ls: []labels.Label{
			l("ann", labels.SourceHuman, "q1", "d1", 2), l("m1", labels.SourceLLM, "q1", "d1", 2),
		}, reference: "gold/human", judges: []string{"ann"}, pairs: []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := judge.Compare(tc.ls, gold, nil, tc.only, 2, false)
			if c.Reference != tc.reference || len(c.Reports) != len(tc.judges) {
				t.Fatalf("Compare = %+v, want reference %q, judges %v", c, tc.reference, tc.judges)
			}
			if tc.exact > 0 && c.Reports[0].Overall.Exact != tc.exact {
				t.Errorf("exact agreement %v, want %v", c.Reports[0].Overall.Exact, tc.exact)
			}
			for i, r := range c.Reports {
				if r.Judge != tc.judges[i] || r.Overall.N != tc.pairs[i] {
					t.Errorf("report %d: judge %s, %d pairs; want %s, %d", i, r.Judge, r.Overall.N, tc.judges[i], tc.pairs[i])
				}
			}
		})
	}
	c := judge.Compare([]labels.Label{l("m1", labels.SourceLLM, "q1", "d1", 2)}, gold, nil, "", 2, false)
	if c.Reports[0].Overall.Exact != 1 {
		t.Errorf("gold 2 vs m1 2: exact %v, want 1", c.Reports[0].Overall.Exact)
	}
	var b bytes.Buffer
	if err := c.WriteJSON(&b, "x"); err != nil || !strings.Contains(b.String(), `"headline": "kappa_quadratic"`) || !strings.Contains(b.String(), `"dataset": "x"`) {
		t.Errorf("WriteJSON = %q, %v", b.String(), err)
	}
}
