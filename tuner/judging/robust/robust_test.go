package robust_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/robust"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

func trial(name string, docs ...string) decision.Trial {
	qr := runs.QueryResult{QueryID: "q1"}
	for _, d := range docs {
		qr.Top = append(qr.Top, runs.RankedDoc{DocID: d, Grade: -1})
	}
	return decision.Trial{Name: name, Results: []runs.QueryResult{qr}}
}

func label(judge, doc string, grade int, conf float64, at int64) labels.Label {
	return labels.Label{Dataset: "d", Query: "q1", Doc: doc, Grade: grade, Judge: judge, Source: labels.SourceFile, Confidence: conf, Time: time.Unix(at, 0)}
}

// A ranks a1 then s, B ranks b1 then s; s is judged relevant. Scored by
// P@2, the trial whose first document the labels call relevant leads.
func TestAnalyze(t *testing.T) {
	sc, err := scoring.NewScorer("P@2", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	trials := []decision.Trial{trial("A", "a1", "s"), trial("B", "b1", "s")}
	tests := []struct {
		name      string
		gold      map[string]int
		labels    []labels.Label
		resamples int
		winner    string
		robust    bool
		depends   string
		want      []string
		survived  [2]int
	}{{
		// The newer file judge's labels win the merge: B leads; under x
		// alone A does, and the order reverses (tau -1).
		name:   "two judges swap the top two",
		gold:   map[string]int{"s": 1},
		labels: []labels.Label{label("file:x", "a1", 1, 1, 1), label("file:x", "b1", 0, 1, 1), label("file:y", "a1", 0, 1, 2), label("file:y", "b1", 1, 1, 2)},
		// Confidence 1: every resample is the reference.
		resamples: 10, winner: "B", depends: `under file:x "A" leads`, survived: [2]int{10, 10},
		want: []string{`file:x (2 labels): the winner does not lead: "A" does; Kendall tau of the top 2 -1.0000`, "file:y (2 labels): the winner leads; Kendall tau of the top 2 1.0000",
			"not robust: the winner depends on the judge (under file:x \"A\" leads)"},
	}, {
		name:      "judges agree",
		gold:      map[string]int{"s": 1},
		labels:    []labels.Label{label("file:x", "a1", 1, 1, 1), label("alice", "a1", 1, 1, 2), label("alice", "b1", 0, 1, 2)},
		resamples: 10, winner: "A", robust: true, survived: [2]int{10, 10},
		want: []string{"robust: the winner does not depend on the judge"},
	}, {
		// a1 relevant ties A with B (A first by name); a resample flips it
		// half of the time and B leads.
		name:      "an unsure label",
		gold:      map[string]int{"s": 1, "b1": 1},
		labels:    []labels.Label{label("llm:m@1", "a1", 1, 0.5, 1)},
		resamples: 200, winner: "A", depends: "it leads in", survived: [2]int{70, 130},
		want: []string{"200 label resamples by confidence (seed 3): the winner leads in"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := robust.Analyze(robust.Input{Trials: trials, Gold: scoring.Judgments{"q1": tt.gold}, Labels: tt.labels, Scorer: sc, MaxGrade: 1, Top: 2, Resamples: &tt.resamples, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if r.Winner != tt.winner || r.Robust != tt.robust || !strings.Contains(r.DependsOn(), tt.depends) || (tt.depends == "") != (r.DependsOn() == "") {
				t.Errorf("winner %q robust %v depends %q; want %q %v %q", r.Winner, r.Robust, r.DependsOn(), tt.winner, tt.robust, tt.depends)
			}
			if r.Survived < tt.survived[0] || r.Survived > tt.survived[1] {
				t.Errorf("survived %d of %d, want %d..%d", r.Survived, r.Resamples, tt.survived[0], tt.survived[1])
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestAnalyzeRanges(t *testing.T) {
	sc, err := scoring.NewScorer("P@2", nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	bad := -1
	_, err = robust.Analyze(robust.Input{Trials: []decision.Trial{trial("A", "a")}, Scorer: sc, MaxGrade: 1, Top: 1, Resamples: &bad})
	if err == nil || err.Error() != "--top must be in 2..1000 (got 1)\n--resamples must be in 0..10000 (got -1)" {
		t.Errorf("got %v", err)
	}
}
