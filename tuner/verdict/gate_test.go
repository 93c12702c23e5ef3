package verdict_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/runs"
)

func TestParseGate(t *testing.T) {
	for _, tc := range []struct {
		in                   string
		metric, cat, op, err string
		value                float64
		ref                  bool
	}{
		{in: "Recall@3 >= 0.80", metric: "Recall@3", op: ">=", value: 0.8},
		{in: "routing[billing] == 1.0", metric: "routing", cat: "billing", op: "==", value: 1},
		{in: " MRR@10>=0.7 ", metric: "MRR@10", op: ">=", value: 0.7},
		{in: "NDCG@10[multi intent] < 0.9", metric: "NDCG@10", cat: "multi intent", op: "<", value: 0.9},
		{in: "PRIMARY > 0.4", metric: "primary", op: ">", value: 0.4},
		{in: "ndcg@10 != 0", metric: "NDCG@10", op: "!=", value: 0},
		// "a strong passage in the top 3", per category too
		{in: "Recall_Strong@3 >= 0.8", metric: "Recall_Strong@3", op: ">=", value: 0.8},
		{in: "recall_exact@3[howto] >= 0.5", metric: "Recall_Exact@3", cat: "howto", op: ">=", value: 0.5},
		{in: "Strong_Success@3 == 1", metric: "Strong_Success@3", op: "==", value: 1},
		{in: "NDCG@10 >= ref - 0.01", metric: "NDCG@10", op: ">=", value: -0.01, ref: true},
		{in: "NDCG@10[howto] >= ref-0.02", metric: "NDCG@10", cat: "howto", op: ">=", value: -0.02, ref: true},
		{in: "primary > ref", metric: "primary", op: ">", ref: true},
		{in: "routing >= ref + 0", metric: "routing", op: ">=", ref: true},
		{in: "MRR@10 >= ref - x", err: `offset "x" is not a number >= 0`},
		{in: "MRR@10 >= ref - -0.1", err: `offset "-0.1" is not a number >= 0`},
		{in: "Recall@3 => 0.8", err: "want METRIC[CATEGORY] OP NUMBER"},
		{in: "Recall@3 >= high", err: `threshold "high" is not a number`},
		{in: "Recall@3 >= NaN", err: `threshold "NaN" is not a number`},
		{in: "Foo@3 >= 1", err: `unknown measure "Foo"`},
		{in: "", err: "want METRIC"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			g, err := verdict.ParseGate(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Metric != tc.metric || g.Category != tc.cat || g.Op != tc.op || g.Value != tc.value || g.Ref != tc.ref {
				t.Errorf("got %+v", g)
			}
		})
	}
}

func TestCheckGatesOnEntry(t *testing.T) {
	routing := 0.9
	e := runs.Entry{Name: "t", Status: runs.StatusOK, Primary: 0.5, Summary: runs.Summary{Routing: &routing,
		Scorecard:  map[string]float64{"MRR@10": 0.7},
		Categories: map[string]map[string]float64{"direct": {"primary": 0.6, "MRR@10": 0.8}}}}
	var gates []verdict.Gate
	for _, s := range []string{"MRR@10 >= 0.70", "MRR@10 > 0.7", "routing == 0.9", "MRR@10[direct] >= 0.8", "primary[direct] < 0.5", "NDCG@10 >= 0"} {
		g, err := verdict.ParseGate(s)
		if err != nil {
			t.Fatal(err)
		}
		gates = append(gates, g)
	}
	res, err := verdict.CheckGates(nil, e, gates)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, true, false, false}
	for i, r := range res {
		if r.Pass != want[i] {
			t.Errorf("%s: pass %v, want %v (%s)", r.Text, r.Pass, want[i], r)
		}
	}
	if got := len(verdict.FailedGates(res)); got != 3 {
		t.Errorf("%d failed, want 3", got)
	}
	if !strings.Contains(res[5].String(), "NDCG@10 was not measured") {
		t.Errorf("unmeasured gate: %s", res[5])
	}
}

// FuzzParseGate: any input either parses into a gate that renders its own
// text and holds or fails on a value without panicking, or is an error
// that quotes the input.
func FuzzParseGate(f *testing.F) {
	for _, s := range []string{"Recall@3 >= 0.80", "routing[billing] == 1.0", "MRR@10>=0.7", "x[", "P@1 < -1e309", "NDCG@10[a b] != 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := verdict.ParseGate(s)
		if err != nil {
			if !strings.Contains(err.Error(), "gate ") {
				t.Errorf("error without context: %v", err)
			}
			return
		}
		if g.Text != strings.TrimSpace(s) || g.Metric == "" || g.Op == "" {
			t.Errorf("parsed %q into %+v", s, g)
		}
		if g.Metric == verdict.RoutingMetric && g.Category != "" {
			return // reads the run's query results
		}
		res, err := verdict.CheckGates(nil, runs.Entry{Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{}}}, []verdict.Gate{g})
		if err != nil || len(res) != 1 {
			t.Fatalf("%v %v", res, err)
		}
	})
}

// TestResolveGates: a relative gate takes the reference's value plus its
// offset, keeps its text with the numbers; absolute gates are unchanged; a
// reference without the metric is an error naming the gate. Unresolved,
// a relative gate fails with a detail saying it needs a reference.
func TestResolveGates(t *testing.T) {
	var gates []verdict.Gate
	for _, s := range []string{"NDCG@10 >= ref - 0.01", "NDCG@10[howto] >= ref", "Recall@3 >= 0.8"} {
		g, err := verdict.ParseGate(s)
		if err != nil {
			t.Fatal(err)
		}
		gates = append(gates, g)
	}
	ref := map[string]float64{"NDCG@10/": 0.65, "NDCG@10/howto": 0.5}
	value := func(m, c string) (float64, bool) { v, ok := ref[m+"/"+c]; return v, ok }
	got, err := verdict.ResolveGates(gates, value)
	if err != nil {
		t.Fatal(err)
	}
	if g := got[0]; g.Ref || g.Value != 0.64 || g.Text != "NDCG@10 >= ref - 0.01 (ref 0.6500: >= 0.6400)" {
		t.Errorf("resolved %+v", g)
	}
	if g := got[1]; g.Ref || g.Value != 0.5 || g.Category != "howto" {
		t.Errorf("resolved %+v", g)
	}
	if got[2] != gates[2] {
		t.Errorf("an absolute gate changed: %+v", got[2])
	}
	missing, _ := verdict.ParseGate("MRR@10 >= ref")
	if _, err := verdict.ResolveGates([]verdict.Gate{missing}, value); err == nil || !strings.Contains(err.Error(), `gate "MRR@10 >= ref": the reference has no MRR@10`) {
		t.Errorf("err = %v", err)
	}
	rs, err := verdict.CheckGates(nil, runs.Entry{Name: "t", Status: runs.StatusOK, Summary: runs.Summary{Scorecard: map[string]float64{"NDCG@10": 0.9}}}, gates[:1])
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Pass || !strings.Contains(rs[0].Detail, "relative to a reference run") {
		t.Errorf("unresolved relative gate: %+v", rs[0])
	}
}
