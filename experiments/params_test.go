package experiments_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

// replayableByName is the replayable rule by name alone,
// which Replayable replaces; it must answer alike for every name.
func replayableByName(param string) bool {
	switch param {
	case "fusion.method", "fusion.k", "fusion.normalization", "depth", "min_score":
		return true
	}
	return strings.HasPrefix(param, experiments.WeightPrefix)
}

// replayableFloors are the per-retriever floors (replayable: fused offline since the engine applies them at
// fusion): the only names on which Replayable and the old rule differ.
var replayableFloors = map[string]bool{"bm25.min_score": true, "dense.min_score": true}

// replayableWeaviate are Weaviate's own alpha and fusionType, fused offline by Weaviate's formula
// (fusion.FormulaWeaviate) from legs the weaviate kind collects alone.
var replayableWeaviate = map[string]bool{"alpha": true, "fusionType": true}

// replayableRerank are the rerank stage's window and weight, reranked
// offline from the reranker's scores of every candidate, collected beside
// the lists; turning the stage on or off (rerank.enabled) changes what is
// collected.
var replayableRerank = map[string]bool{"rerank.window": true, "rerank.weight": true}

// replayableRule is the rule by name, with the floors, Weaviate's own
// parameters and the rerank stage's added.
func replayableRule(param string) bool {
	return replayableFloors[param] || replayableWeaviate[param] || replayableRerank[param] || replayableByName(param)
}

func TestReplayable(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"fusion.method", true},
		{"fusion.k", true},
		{"fusion.normalization", true},
		{"depth", true},
		{"min_score", true},
		{"bm25.min_score", true},  // a floor, applied at fusion
		{"dense.min_score", true}, // a floor, applied at fusion
		{"alpha", true},           // Weaviate's, fused by its formula
		{"fusionType", true},
		{"fusion.weights.bm25", true},
		{"fusion.weights.dense", true},
		{"fusion.weights.splade", true}, // any retriever's weight
		{"fusion.weights.", true},       // by prefix, as the tuner's rule
		{"fusion.weights.a.b", true},    // by prefix, though LookupParam refuses it
		{"rerank.window", true},         // reranked from collected scores
		{"rerank.weight", true},
		{"rerank.enabled", false},          // changes what is collected
		{"retrievers", false},              // query-time, but changes the lists
		{"chunk.size", false},              // index-time
		{"chunk.overlap", false},           // index-time
		{"dense.model", false},             // index-time
		{"bm25.k1", false},                 // index-time
		{"bm25.b", false},                  // index-time
		{"custom.boost", false},            // passed to external backends
		{"custom.fusion.weights.x", false}, // custom, whatever follows
		{"fusion.weights", false},          // no retriever: not a weight
		{"fusion.depth", false},            // an engine key, not a parameter
		{"passage", false},
		{"Fusion.k", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := experiments.Replayable(tt.name); got != tt.want {
				t.Errorf("Replayable(%q) = %v, want %v", tt.name, got, tt.want)
			}
			if old := replayableRule(tt.name); old != tt.want {
				t.Errorf("the tuner's rule says %v for %q: the table is wrong", old, tt.name)
			}
		})
	}
}

// TestReplayableAgreesWithTuner compares Replayable with the tuner's rule
// over every known name and every parameter of the shipped files.
func TestReplayableAgreesWithTuner(t *testing.T) {
	names := experiments.ParamNames()
	for _, path := range []string{"shortlist.json", "round1.json", "study.yaml"} {
		ef, err := experiments.LoadExperimentFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, sp := range ef.Space {
			names = append(names, sp.Param)
		}
		trials, _, err := ef.Expand()
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trials {
			names = append(names, tr.Params.Keys()...)
		}
	}
	for _, n := range names {
		if got, want := experiments.Replayable(n), replayableRule(n); got != want {
			t.Errorf("Replayable(%q) = %v, the tuner's rule %v", n, got, want)
		}
	}
}

// TestParamSpecStages checks that no known parameter is both index-time
// and replayable.
func TestParamSpecStages(t *testing.T) {
	for _, n := range append(experiments.ParamNames(), "fusion.weights.bm25") {
		s, ok := experiments.LookupParam(n)
		if !ok {
			continue
		}
		if s.IndexTime && s.Replayable {
			t.Errorf("%s: both index-time and replayable", n)
		}
		if s.Replayable != experiments.Replayable(n) {
			t.Errorf("%s: spec says replayable %v, Replayable %v", n, s.Replayable, experiments.Replayable(n))
		}
	}
}
