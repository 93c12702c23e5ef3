package judge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func TestCombine(t *testing.T) {
	tests := []struct {
		name    string
		grades  []int
		vote    string
		members int
		grade   int
		conf    float64
	}{
		{"majority", []int{2, 2, 1}, judge.VoteMajority, 3, 2, 2.0 / 3},
		{"unanimous", []int{3, 3, 3}, judge.VoteMajority, 3, 3, 1},
		{"three-way tie goes to the lowest", []int{3, 1, 2}, judge.VoteMajority, 3, 1, 1.0 / 3},
		{"two-way tie goes to the lower", []int{3, 0}, judge.VoteMajority, 2, 0, 0.5},
		{"a member that did not grade counts against", []int{2, 2}, judge.VoteMajority, 3, 2, 2.0 / 3},
		{"mean", []int{3, 2, 2}, judge.VoteMean, 3, 2, 2.0 / 3},
		{"mean, a half rounds down", []int{3, 2}, judge.VoteMean, 2, 2, 0.5},
		{"mean, above a half rounds up", []int{3, 3, 1}, judge.VoteMean, 3, 2, 0},
		{"mean, 1.5 is 1", []int{0, 3}, judge.VoteMean, 2, 1, 0},
		{"mean of zeros", []int{0, 0}, judge.VoteMean, 2, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, c := judge.Combine(tc.grades, tc.vote, tc.members)
			if g != tc.grade || c != tc.conf {
				t.Fatalf("Combine(%v, %s, %d) = %d, %v; want %d, %v", tc.grades, tc.vote, tc.members, g, c, tc.grade, tc.conf)
			}
		})
	}
}

// gradedPairs are n queries of three terms with four documents holding 0
// to 3 of them: the stand-in server's rule grades them 0..3, the gold.
func gradedPairs(n int) ([]judge.Pair, map[[2]string]int) {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	var pairs []judge.Pair
	gold := map[[2]string]int{}
	for q := range n {
		terms := []string{words[q%10], words[(q+3)%10], words[(q+7)%10]}
		id := fmt.Sprintf("q%03d", q)
		for k := range 4 {
			doc := fmt.Sprintf("d%d", k)
			pairs = append(pairs, judge.Pair{Query: id, QueryText: strings.Join(terms, " "), Doc: doc,
				DocText: strings.Join(append(terms[:k:k], "filler", fmt.Sprintf("text%d", q)), " ")})
			gold[[2]string{id, doc}] = k
		}
	}
	return pairs, gold
}

// TestEnsembleBeatsItsMembers: three stand-in servers at the network
// boundary each answer with 35% noise of their own seed; the majority of
// the three agrees with the rule's grades (the gold) more than each of
// them, exactly and by weighted kappa; its labels carry its name and the
// agreement share as confidence.
func TestEnsembleBeatsItsMembers(t *testing.T) {
	pairs, gold := gradedPairs(40)
	prompt, err := llm.Builtin(llm.PromptGraded)
	if err != nil {
		t.Fatal(err)
	}
	var members []*recorder
	var js []judge.Judge
	for i, seed := range []uint64{11, 12, 13} {
		srv := llmtest.Start(t)
		srv.Noise, srv.NoiseSeed = 0.35, seed
		j, err := llm.New(llm.Config{Dataset: "demo", URL: srv.URL, Model: fmt.Sprintf("noisy-%d", i), Prompt: prompt, Batch: 4,
			Concurrency: 1, Timeout: 5 * time.Second, MaxDocChars: 1000, Seed: 1}) // one call at a time: the noise is drawn in a fixed order
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, &recorder{j: j})
		js = append(js, members[i])
	}
	ens, err := judge.NewEnsemble("demo", js, judge.VoteMajority, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ensemble(" + js[0].Name() + "," + js[1].Name() + "," + js[2].Name() + ")"; ens.Name() != want {
		t.Fatalf("name %q, want %q", ens.Name(), want)
	}
	ls, err := ens.Judge(context.Background(), pairs)
	if err != nil || len(ls) != len(pairs) {
		t.Fatalf("%d labels, %v", len(ls), err)
	}
	vsGold := func(ls []labels.Label) judge.Agreement {
		var rs []judge.Rating
		for _, l := range ls {
			rs = append(rs, judge.Rating{Query: l.Query, Doc: l.Doc, Ref: gold[[2]string{l.Query, l.Doc}], Got: l.Grade})
		}
		return judge.Agree(rs, 3)
	}
	for _, l := range ls {
		if l.Judge != ens.Name() || l.Source != labels.SourceLLM || (l.Confidence != 1.0/3 && l.Confidence != 2.0/3 && l.Confidence != 1) {
			t.Fatalf("label %+v", l)
		}
	}
	ensemble := vsGold(ls)
	t.Logf("ensemble vs gold: exact %.3f, kappa %.3f", ensemble.Exact, ensemble.KappaQuadratic)
	reports := ens.Agreements()
	for i, m := range members {
		a := vsGold(m.got)
		t.Logf("%s vs gold: exact %.3f, kappa %.3f; vs the ensemble: exact %.3f", m.Name(), a.Exact, a.KappaQuadratic, reports[i].Overall.Exact)
		if a.N != len(pairs) || a.Exact > 0.75 {
			t.Fatalf("member %d: %d pairs, exact %.3f: not the noise asked for", i, a.N, a.Exact)
		}
		if ensemble.Exact <= a.Exact || ensemble.KappaQuadratic <= a.KappaQuadratic {
			t.Errorf("the ensemble (exact %.3f, kappa %.3f) does not beat %s (exact %.3f, kappa %.3f)",
				ensemble.Exact, ensemble.KappaQuadratic, m.Name(), a.Exact, a.KappaQuadratic)
		}
		if reports[i].Judge != m.Name() || reports[i].Overall.N != len(pairs) || reports[i].Overall.Exact < 1.0/3 {
			t.Fatalf("member %d's agreement with the ensemble: %+v", i, reports[i])
		}
	}
}

// recorder is a judge keeping its labels.
type recorder struct {
	j   judge.Judge
	got []labels.Label
}

func (r *recorder) Name() string { return r.j.Name() }

func (r *recorder) Judge(ctx context.Context, pairs []judge.Pair) ([]labels.Label, error) {
	ls, err := r.j.Judge(ctx, pairs)
	r.got = append(r.got, ls...)
	return ls, err
}
