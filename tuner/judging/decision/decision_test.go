package decision_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/decision"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// trial records one ranking per query (q1, q2, ... in order).
func trial(name string, rankings ...[]string) decision.Trial {
	t := decision.Trial{Name: name}
	for i, r := range rankings {
		qr := runs.QueryResult{QueryID: fmt.Sprintf("q%d", i+1)}
		for _, d := range r {
			qr.Top = append(qr.Top, runs.RankedDoc{DocID: d, Grade: -1})
		}
		t.Results = append(t.Results, qr)
	}
	return t
}

func precisionAt(t testing.TB, k int) scoring.Scorer {
	t.Helper()
	sc, err := scoring.NewScorer(fmt.Sprintf("P@%d", k), nil, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestAnalyze(t *testing.T) {
	sc := precisionAt(t, 2)
	tests := []struct {
		name      string
		trials    []decision.Trial
		judgments scoring.Judgments
		skip      func(q, d string) bool
		want      string
		pairs     []string
	}{{
		// cand leads 0.75 to 0.5; b, unjudged, is only in cand's top 2:
		// its label can only widen the lead.
		name:      "settled: the unjudged pair only helps the leader",
		trials:    []decision.Trial{trial("base", []string{"x", "y"}, []string{"p", "q"}), trial("cand", []string{"a", "x"}, []string{"p", "b"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 0, "a": 1}, "q2": {"p": 1, "q": 0}},
		want: "decision: ship \"cand\" (primary 0.7500) over the baseline \"base\" (0.5000)\n" +
			"  vs the baseline \"base\": +0.2500 now, [+0.2500, +0.5000] under the worst and best labelling of 1 unjudged pairs: holds\n" +
			"settled: no unjudged pair can change the decision\n",
	}, {
		// c in the baseline's q2 graded relevant and b not would tie them:
		// (0.5 + (0.5 - 1)) / 2 = 0.
		name:      "open: each side has an unjudged pair",
		trials:    []decision.Trial{trial("base", []string{"x", "y"}, []string{"p", "c"}), trial("cand", []string{"a", "x"}, []string{"p", "b"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 0, "a": 1}, "q2": {"p": 1}},
		want: "decision: ship \"cand\" (primary 0.7500) over the baseline \"base\" (0.5000)\n" +
			"  vs the baseline \"base\": +0.2500 now, [+0.0000, +0.5000] under the worst and best labelling of 2 unjudged pairs: open\n" +
			"open: 2 unjudged pairs can change the decision\n",
		pairs: []string{"q2/b 0.25", "q2/c 0.25"},
	}, {
		name:      "a pair asked before counts as judged",
		trials:    []decision.Trial{trial("base", []string{"x", "y"}, []string{"p", "c"}), trial("cand", []string{"a", "x"}, []string{"p", "b"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 0, "a": 1}, "q2": {"p": 1}},
		skip:      func(q, d string) bool { return q == "q2" && d == "c" },
		want: "decision: ship \"cand\" (primary 0.7500) over the baseline \"base\" (0.5000)\n" +
			"  vs the baseline \"base\": +0.2500 now, [+0.2500, +0.5000] under the worst and best labelling of 1 unjudged pairs: holds\n" +
			"settled: no unjudged pair can change the decision\n",
	}, {
		// The baseline leads; the runner-up could overtake it through d.
		name: "keep the baseline, the runner-up open",
		trials: []decision.Trial{trial("base", []string{"x", "y"}), trial("cand", []string{"d", "x"}),
			trial("low", []string{"y", "z"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 1, "z": 0}},
		want: "decision: keep the baseline \"base\" (primary 1.0000): it leads\n" +
			"  vs the runner-up \"cand\": +0.5000 now, [+0.0000, +0.5000] under the worst and best labelling of 1 unjudged pairs: open\n" +
			"open: 1 unjudged pairs can change the decision\n",
		pairs: []string{"q1/d 0.5"},
	}, {
		name: "ship, with the runner-up apart from the baseline",
		trials: []decision.Trial{trial("base", []string{"z", "w"}), trial("cand", []string{"x", "y"}),
			trial("next", []string{"x", "e"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 1, "z": 0, "w": 0}},
		want: "decision: ship \"cand\" (primary 1.0000) over the baseline \"base\" (0.0000)\n" +
			"  vs the baseline \"base\": +1.0000 now, [+1.0000, +1.0000] under the worst and best labelling of 0 unjudged pairs: holds\n" +
			"  vs the runner-up \"next\": +0.5000 now, [+0.0000, +0.5000] under the worst and best labelling of 1 unjudged pairs: open\n" +
			"open: 1 unjudged pairs can change the decision\n",
		pairs: []string{"q1/e 0.5"},
	}, {
		// far trails with nothing judged in its top 2; graded relevant,
		// f and g would tie it with the leader.
		name: "a challenger beyond the runner-up",
		trials: []decision.Trial{trial("base", []string{"z", "w"}), trial("cand", []string{"x", "y"}),
			trial("next", []string{"x", "w"}), trial("far", []string{"f", "g"})},
		judgments: scoring.Judgments{"q1": {"x": 1, "y": 1, "z": 0, "w": 0}},
		want: "decision: ship \"cand\" (primary 1.0000) over the baseline \"base\" (0.0000)\n" +
			"  vs the baseline \"base\": +1.0000 now, [+1.0000, +1.0000] under the worst and best labelling of 0 unjudged pairs: holds\n" +
			"  vs the runner-up \"next\": +0.5000 now, [+0.5000, +0.5000] under the worst and best labelling of 0 unjudged pairs: holds\n" +
			"  vs 1 other trials some labelling could still put ahead: open\n" +
			"open: 2 unjudged pairs can change the decision\n",
		pairs: []string{"q1/f 0.5", "q1/g 0.5"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := decision.Analyze(decision.Input{Trials: tt.trials, Baseline: "base", Judgments: tt.judgments, Skip: tt.skip, Scorer: sc, MaxGrade: 1, Dataset: "d"})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := a.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
			var pairs []string
			for _, p := range a.Pairs {
				pairs = append(pairs, fmt.Sprintf("%s/%s %g", p.Query, p.Doc, p.Priority))
			}
			if fmt.Sprint(pairs) != fmt.Sprint(tt.pairs) {
				t.Errorf("pairs %v, want %v", pairs, tt.pairs)
			}
		})
	}
}

// TestAnalyzeBoundsAreExtremes checks, on random small runs scored by a
// measure linear in the grades, that the bounds are the smallest and
// largest mean difference over every labelling of the unjudged pairs.
func TestAnalyzeBoundsAreExtremes(t *testing.T) {
	sc := precisionAt(t, 3)
	docs := []string{"a", "b", "c", "d", "e", "f"}
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 40 {
		const queries = 3
		var trials []decision.Trial
		for _, name := range []string{"base", "t1", "t2"} {
			var rs [][]string
			for range queries {
				p := rng.Perm(len(docs))
				rs = append(rs, []string{docs[p[0]], docs[p[1]], docs[p[2]]})
			}
			trials = append(trials, trial(name, rs...))
		}
		j := scoring.Judgments{}
		for q := 1; q <= queries; q++ {
			j[fmt.Sprintf("q%d", q)] = map[string]int{}
			for _, d := range docs {
				if rng.IntN(2) == 0 {
					j[fmt.Sprintf("q%d", q)][d] = rng.IntN(2)
				}
			}
			j[fmt.Sprintf("q%d", q)]["a"] = rng.IntN(2) // every query judged
		}
		a, err := decision.Analyze(decision.Input{Trials: trials, Baseline: "base", Judgments: j, Scorer: sc, MaxGrade: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range a.Comparisons {
			lo, hi := bruteBounds(sc, trials, j, a.Leader, c.Other)
			if math.Abs(lo-c.Low) > 1e-6 || math.Abs(hi-c.High) > 1e-6 {
				t.Errorf("round %d, %s vs %s: bounds [%g, %g], every labelling gives [%g, %g]", round, a.Leader, c.Other, c.Low, c.High, lo, hi)
			}
		}
	}
}

// bruteBounds tries every 0/1 labelling of the unjudged documents the
// two trials rank.
func bruteBounds(sc scoring.Scorer, trials []decision.Trial, j scoring.Judgments, x, y string) (lo, hi float64) {
	byName := map[string]decision.Trial{}
	for _, t := range trials {
		byName[t.Name] = t
	}
	type pair struct{ q, d string }
	var unjudged []pair
	seen := map[pair]bool{}
	for _, n := range []string{x, y} {
		for _, r := range byName[n].Results {
			for _, d := range r.Top {
				p := pair{r.QueryID, d.DocID}
				if _, ok := j[r.QueryID][d.DocID]; !ok && !seen[p] {
					seen[p] = true
					unjudged = append(unjudged, p)
				}
			}
		}
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for mask := 0; mask < 1<<len(unjudged); mask++ {
		jj := scoring.Judgments{}
		for q, g := range j {
			jj[q] = map[string]int{}
			for d, v := range g {
				jj[q][d] = v
			}
		}
		for i, p := range unjudged {
			jj[p.q][p.d] = mask >> i & 1
		}
		d := scoring.ScoreRecorded(byName[x].Results, jj, sc, nil).Primary - scoring.ScoreRecorded(byName[y].Results, jj, sc, nil).Primary
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}
