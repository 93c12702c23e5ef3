package runs_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// gridRun is a leaderboard of a grid whose axes retrievers, method and
// chunk.size have one value each, a variant named by the file, the
// baseline (which leaves retrievers unset: bm25+dense by default) and two
// sampled trials.
func gridRun() runs.Leaderboard {
	base := map[string]any{"fusion.method": "rrf", "fusion.k": 60.0, "chunk.size": 0.0}
	with := func(kv ...any) map[string]any {
		p := map[string]any{}
		for k, v := range base {
			p[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i].(string)] = kv[i+1]
		}
		return p
	}
	both := []any{"bm25", "dense"}
	var trials []runs.TrialRecord
	add := func(name, sampler string, params map[string]any) {
		trials = append(trials, runs.TrialRecord{Index: len(trials), Name: name, Baseline: name == "baseline", Sampler: sampler,
			Status: runs.StatusOK, Primary: 0.5 - 0.01*float64(len(trials)), Params: params})
	}
	add("baseline", "", with())
	for _, k := range []float64{20, 40} {
		for _, w := range [][2]float64{{0.3, 0.7}, {0.7, 0.3}} {
			name := "retrievers=bm25+dense,method=rrf,k=" + map[float64]string{20: "20", 40: "40"}[k] + ",w=bm25:" +
				map[float64]string{0.3: "0.3", 0.7: "0.7"}[w[0]] + "/dense:" + map[float64]string{0.3: "0.3", 0.7: "0.7"}[w[1]] + ",chunk.size=0"
			add(name, "", with("retrievers", both, "fusion.k", k, "fusion.weights.bm25", w[0], "fusion.weights.dense", w[1]))
		}
	}
	add("bm25-only", "", with("retrievers", []any{"bm25"}))
	add("tpe-001", "tpe", with("fusion.k", 37.0, "fusion.weights.bm25", 0.9738285182219153, "fusion.weights.dense", 0.0123456))
	add("tpe-002", "tpe", with("fusion.k", 37.0, "fusion.weights.bm25", 0.5, "fusion.weights.dense", 0.25))
	lb := runs.NewLeaderboard("default composite: mean of NDCG@10, ERR@10", []string{"NDCG@10"}, trials)
	lb.SetDefaults(func(params map[string]any, name string) (any, bool) {
		switch {
		case name == "retrievers":
			return []string{"bm25", "dense"}, true
		case strings.HasPrefix(name, "fusion.weights."):
			return 1.0, true
		}
		return nil, false
	})
	return lb
}

// TestLabels: a generated name keeps only the parameters that vary (the
// baseline's default retrievers equal the grid's, so retrievers does not
// vary; method and chunk.size have one value); a sampled trial shows its
// varying values rounded; a chosen name is its own label.
func TestLabels(t *testing.T) {
	lb := gridRun()
	if got, want := lb.Varying(), []string{"fusion.k", "fusion.weights.bm25", "fusion.weights.dense", "retrievers"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Varying = %q, want %q", got, want)
	}
	want := map[string]string{
		"baseline":  "baseline",
		"bm25-only": "bm25-only",
		"retrievers=bm25+dense,method=rrf,k=20,w=bm25:0.3/dense:0.7,chunk.size=0": "retrievers=bm25+dense,k=20,w=bm25:0.3/dense:0.7",
		"retrievers=bm25+dense,method=rrf,k=40,w=bm25:0.7/dense:0.3,chunk.size=0": "retrievers=bm25+dense,k=40,w=bm25:0.7/dense:0.3",
		"tpe-001": "tpe-001 k=37,w=bm25:0.974/dense:0.0123",
		"tpe-002": "tpe-002 k=37,w=bm25:0.5/dense:0.25",
	}
	labels := lb.Labels()
	for name, l := range want {
		if labels[name] != l {
			t.Errorf("label of %q = %q, want %q", name, labels[name], l)
		}
	}
	// Without bm25-only, retrievers no longer varies.
	var kept []runs.Entry
	for _, e := range lb.Trials {
		if e.Name != "bm25-only" {
			kept = append(kept, e)
		}
	}
	lb.Trials = kept
	if l := lb.Labels()["retrievers=bm25+dense,method=rrf,k=20,w=bm25:0.3/dense:0.7,chunk.size=0"]; l != "k=20,w=bm25:0.3/dense:0.7" {
		t.Errorf("label without the bm25-only variant = %q", l)
	}
	for _, e := range lb.Trials {
		if e.Name == "baseline" && !reflect.DeepEqual(e.Defaults, map[string]any{"retrievers": []string{"bm25", "dense"}, "fusion.weights.bm25": 1.0, "fusion.weights.dense": 1.0}) {
			t.Errorf("baseline defaults %v", e.Defaults)
		}
	}
}

// TestLabelsNotGenerated: a name whose parts do not show the trial's own
// values, or that would take another trial's name, stays as it is.
func TestLabelsNotGenerated(t *testing.T) {
	trials := []runs.TrialRecord{
		{Index: 0, Name: "k=20,method=rrf", Status: runs.StatusOK, Params: map[string]any{"fusion.k": 20.0, "fusion.method": "rrf"}},
		{Index: 1, Name: "k=20", Status: runs.StatusOK, Params: map[string]any{"fusion.k": 40.0, "fusion.method": "rrf"}},
		{Index: 2, Name: "method=linear,x=1", Status: runs.StatusOK, Params: map[string]any{"fusion.k": 20.0, "fusion.method": "linear"}},
	}
	labels := runs.NewLeaderboard("p", nil, trials).Labels()
	for name, want := range map[string]string{"k=20,method=rrf": "k=20,method=rrf", "k=20": "k=20", "method=linear,x=1": "method=linear,x=1"} {
		if labels[name] != want {
			t.Errorf("label of %q = %q, want %q", name, labels[name], want)
		}
	}
}

// TestPickLabel: what the table shows picks its trial.
func TestPickLabel(t *testing.T) {
	lb := gridRun()
	for ref, want := range map[string]string{
		"retrievers=bm25+dense,k=40,w=bm25:0.7/dense:0.3":                         "retrievers=bm25+dense,method=rrf,k=40,w=bm25:0.7/dense:0.3,chunk.size=0",
		"retrievers=bm25+dense,method=rrf,k=40,w=bm25:0.7/dense:0.3,chunk.size=0": "retrievers=bm25+dense,method=rrf,k=40,w=bm25:0.7/dense:0.3,chunk.size=0",
		"retrievers=bm25+dense,k=20,w=bm25:0.7…":                                  "retrievers=bm25+dense,method=rrf,k=20,w=bm25:0.7/dense:0.3,chunk.size=0",
		"tpe-001 k=37,w=bm25:0.974/dense:0.0123":                                  "tpe-001",
		"tpe-002 k=37,…":                                                          "tpe-002",
	} {
		e, err := lb.Pick(ref)
		if err != nil || e.Name != want {
			t.Errorf("Pick(%q) = %q, %v, want %q", ref, e.Name, err, want)
		}
	}
	if _, err := lb.Pick("retrievers=bm25+dense,k=20"); err == nil || !strings.Contains(err.Error(), "#") {
		t.Errorf("an ambiguous label prefix: %v", err)
	}
}

func TestMeasure(t *testing.T) {
	for _, tc := range []struct {
		primary string
		heldOut bool
		want    string
	}{
		{"default composite: mean of NDCG@20, NDCG@50", false, "default composite"},
		{"default composite: mean of NDCG@20 (grades 0-1: relevant >= 1, strong >= 1, exact >= 1)", false, "default composite"},
		{"1*NDCG@10", false, "NDCG@10"},
		{"default for binary judgments: NDCG@10", false, "NDCG@10"},
		{"default for binary judgments: NDCG@10 (binary grades)", true, "NDCG@10 (dev split)"},
		{"1*NDCG@10", true, "NDCG@10 (dev split)"},
		{"0.5*NDCG@10+0.5*Recall@20", false, "0.5*NDCG@10+0.5*Recall@20"},
		{"1*NDCG@10+1*MRR@10", false, "1*NDCG@10+1*MRR@10"},
		{"", false, "primary"},
	} {
		lb := runs.Leaderboard{Primary: tc.primary}
		if tc.heldOut {
			lb.HeldOut = &runs.HeldOut{}
		}
		if got := lb.Measure(); got != tc.want {
			t.Errorf("Measure(%q) = %q, want %q", tc.primary, got, tc.want)
		}
	}
}
