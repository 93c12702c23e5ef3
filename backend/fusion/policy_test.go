package fusion_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
)

func TestQueryFeatures(t *testing.T) {
	top, second := 0.8, 0.7 // the gap as float64 arithmetic gives it
	lists := map[string][]fusion.Candidate{
		"bm25":  {{ID: "a", Score: 9}, {ID: "b", Score: 7.5}, {ID: "c", Score: 1}},
		"dense": {{ID: "c#1", DocID: "c", Score: 0.8}, {ID: "x", Score: 0.7}, {ID: "a", Score: 0.1}},
	}
	tests := []struct {
		name  string
		text  string
		lists map[string][]fusion.Candidate
		depth int
		want  map[string]float64
	}{
		{"both lists", "What causes p53-loss?", lists, 100, map[string]float64{
			"query_tokens": 4, "bm25.top": 9, "bm25.gap": 1.5, "bm25.matches": 3,
			"dense.top": 0.8, "dense.gap": top - second, "overlap10": 2}},
		// Read to depth 1: one candidate each, no shared document, gap = top.
		{"depth 1", "q", lists, 1, map[string]float64{
			"query_tokens": 1, "bm25.top": 9, "bm25.gap": 9, "bm25.matches": 1,
			"dense.top": 0.8, "dense.gap": 0.8, "overlap10": 0}},
		{"no lexical match", "zzz", map[string][]fusion.Candidate{"bm25": nil, "dense": lists["dense"][:1]}, 100, map[string]float64{
			"query_tokens": 1, "bm25.top": 0, "bm25.gap": 0, "bm25.matches": 0,
			"dense.top": 0.8, "dense.gap": 0.8, "overlap10": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fusion.QueryFeatures(tc.text, tc.lists, tc.depth)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("features %v, want %v", got, tc.want)
			}
		})
	}
	want := []string{"bm25.gap", "bm25.matches", "bm25.top", "dense.gap", "dense.top", "overlap10", "query_tokens"}
	if got := fusion.PolicyFeatures([]string{"bm25", "dense"}); !reflect.DeepEqual(got, want) {
		t.Errorf("PolicyFeatures %v, want %v", got, want)
	}
}

func TestPolicyChoose(t *testing.T) {
	p, err := fusion.LoadPolicy("testdata/policy.good.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    map[string]float64
		want int
	}{
		{"below", map[string]float64{"dense.top": 0.49}, 0},
		{"at the threshold goes above", map[string]float64{"dense.top": 0.5}, 1},
		{"missing counts as 0", map[string]float64{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Choose(tc.f); got != tc.want {
				t.Errorf("arm %d, want %d", got, tc.want)
			}
		})
	}
	if got := p.Settings(map[string]float64{"dense.top": 1}).Fusion.K; got != 60 {
		t.Errorf("settings k %v, want 60", got)
	}
	if got := p.ReadDepth(); got != 100 {
		t.Errorf("read depth %d, want 100", got)
	}
	rules := p.Rules(func(s fusion.Settings) string { return string(s.Fusion.Method) })
	if want := "if dense.top < 0.5:\n    use rrf\nelse:\n    use rrf\n"; rules != want {
		t.Errorf("rules %q, want %q", rules, want)
	}
	// Encode then parse gives the same policy.
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := fusion.ParsePolicy(data, "again.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, q) {
		t.Errorf("round trip changed the policy:\n%+v\n%+v", p, q)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	bad, err := os.ReadFile("testdata/policy.bad.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"every problem at once", string(bad), []string{
			"p.json: invalid policy: version: must be 1 (got 2)",
			"depth: must be in [1, 10000] (got 0)",
			`arms[0].Formula: must be empty`,
			"arms[0].Fusion: ",
			`tree.feature: unknown feature "colour"`,
			"tree.below.arm: must be in [0, 0] (got 3)",
			"tree.above: missing",
		}},
		{"syntax", "{\n  \"version\": 1,\n  \"depth\": ]\n}", []string{"p.json:3:12: invalid policy: "}},
		{"unknown field", "{\"version\": 1, \"colour\": 1}", []string{"p.json:1:", `unknown field "colour"`}},
		{"type", "{\"version\": \"one\"}", []string{"p.json:1:"}},
		{"nan threshold is not JSON; infinite depth of tree", `{"version":1,"depth":10,"arms":[{"Fusion":{"depth":10}}],"tree":` +
			strings.Repeat(`{"feature":"query_tokens","threshold":1,"above":{"arm":0},"below":`, 9) + `{"arm":0}` + strings.Repeat("}", 9) + "}",
			[]string{"deeper than 8 splits"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fusion.ParsePolicy([]byte(tc.data), "p.json")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, fusion.ErrPolicy) {
				t.Errorf("error %v is not ErrPolicy", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
