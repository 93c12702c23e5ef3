package labels_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func TestEffective(t *testing.T) {
	gold := map[string]map[string]int{"q1": {"d1": 3, "d2": 0}}
	cases := []struct {
		name string
		ls   []labels.Label
		want string
		prov labels.Provenance
	}{
		{name: "gold only", want: "map[q1:map[d1:3 d2:0]]", prov: labels.Provenance{Gold: 2}},
		{name: "gold wins over a human", ls: []labels.Label{lbl("q1", "d2", "alice", labels.SourceHuman, 3, 0)},
			want: "map[q1:map[d1:3 d2:0]]", prov: labels.Provenance{Gold: 2}},
		{name: "human over newer llm", ls: []labels.Label{
			lbl("q1", "d3", "llm:m@1", labels.SourceLLM, 3, time.Hour),
			lbl("q1", "d3", "alice", labels.SourceHuman, 1, 0)},
			want: "map[q1:map[d1:3 d2:0 d3:1]]", prov: labels.Provenance{Gold: 2, Human: 1}},
		{name: "file over llm over implicit", ls: []labels.Label{
			lbl("q2", "d1", "clicks", labels.SourceImplicit, 1, 0),
			lbl("q2", "d1", "llm:m@1", labels.SourceLLM, 2, 0),
			lbl("q2", "d2", "clicks", labels.SourceImplicit, 1, 0),
			lbl("q2", "d2", "llm:m@1", labels.SourceLLM, 2, 0),
			lbl("q2", "d2", "file:qrels.txt", labels.SourceFile, 3, -time.Hour)},
			want: "map[q1:map[d1:3 d2:0] q2:map[d1:2 d2:3]]", prov: labels.Provenance{Gold: 2, LLM: 1, File: 1}},
		{name: "same source: latest, then judge name", ls: []labels.Label{
			lbl("q3", "d1", "bob", labels.SourceHuman, 1, 0),
			lbl("q3", "d1", "carol", labels.SourceHuman, 2, time.Minute),
			lbl("q3", "d2", "bob", labels.SourceHuman, 1, 0),
			lbl("q3", "d2", "alice", labels.SourceHuman, 2, 0)},
			want: "map[q1:map[d1:3 d2:0] q3:map[d1:2 d2:2]]", prov: labels.Provenance{Gold: 2, Human: 2}},
		{name: "gold-source label", ls: []labels.Label{lbl("q4", "d1", "gold", labels.SourceGold, 2, 0), lbl("q4", "d1", "alice", labels.SourceHuman, 0, time.Hour)},
			want: "map[q1:map[d1:3 d2:0] q4:map[d1:2]]", prov: labels.Provenance{Gold: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, prov := labels.Effective(gold, c.ls)
			if fmt.Sprint(got) != c.want || prov != c.prov {
				t.Fatalf("Effective = %v %+v; want %s %+v", got, prov, c.want, c.prov)
			}
		})
	}
	// The input is not modified.
	if fmt.Sprint(gold) != "map[q1:map[d1:3 d2:0]]" {
		t.Fatalf("gold modified: %v", gold)
	}
}
