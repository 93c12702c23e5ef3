package judging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Audit sample sizes: DefaultAuditSample pairs of each kind, at most
// MaxAuditSample.
const (
	DefaultAuditSample = 50
	MaxAuditSample     = 10000
)

// AuditRequest asks Audit to re-judge a seeded sample.
type AuditRequest struct {
	// Sample is how many pairs of each kind are re-judged, 1..MaxAuditSample.
	Sample int
	Seed   uint64
}

// GradeAgreement is the judge against the golden set on the pairs the
// golden set grades Grade.
type GradeAgreement struct {
	Grade int     `json:"grade"`
	Pairs int     `json:"pairs"`
	Exact float64 `json:"exact"`
	// Mean is the judge's mean grade on them.
	Mean float64 `json:"mean"`
}

// AuditResult is what an audit found.
type AuditResult struct {
	Judge string `json:"judge"`
	Seed  uint64 `json:"seed"`
	// Self compares the judge's stored labels (reference) with its
	// answers asked again; Gold compares the golden set's grades
	// (reference) with the judge's, overall and per gold grade.
	Self    judge.Agreement  `json:"self"`
	Gold    judge.Agreement  `json:"gold"`
	ByGrade []GradeAgreement `json:"by_grade"`
}

// Audit checks the LLM judge against itself and the golden set: it asks
// the server again (bypassing the answer cache) about a seeded sample of
// the pairs the judge has labelled, and about a seeded sample of the
// golden set's judged pairs, and appends nothing.
func Audit(ctx context.Context, e *Env, r AuditRequest) (*AuditResult, error) {
	if r.Sample < 1 || r.Sample > MaxAuditSample {
		return nil, inputerr.Wrap(fmt.Errorf("--sample must be in 1..%d (got %d)", MaxAuditSample, r.Sample))
	}
	st, err := e.OpenStore(ctx, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	lj, err := e.LLM(st)
	if err != nil {
		return nil, err
	}
	lj.SetFresh(true)
	texts, _ := dataset.QueryTexts(e.Data.Queries)
	docs, err := e.Data.JudgeDocs()
	if err != nil {
		return nil, err
	}
	pairOf := func(q, d string) judge.Pair {
		doc := docs[d]
		return judge.Pair{Query: q, QueryText: texts[q], Doc: d, DocTitle: doc.Title, DocText: doc.Text}
	}
	res := &AuditResult{Judge: lj.Name(), Seed: r.Seed}
	latest, err := st.Latest(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	var own []rated
	for _, l := range latest {
		if l.Judge == lj.Name() && texts[l.Query] != "" {
			own = append(own, rated{l.Query, l.Doc, l.Grade})
		}
	}
	var gold []rated
	for q, ds := range e.Data.Gold() {
		for d, g := range ds {
			gold = append(gold, rated{q, d, g})
		}
	}
	if len(own) == 0 && len(gold) == 0 {
		return nil, inputerr.Wrap(errors.New("judge audit: neither labels of the judge nor golden judgments to re-judge"))
	}
	maxGrade := e.maxGrade()
	for _, part := range []struct {
		from []rated
		seed uint64
		to   *judge.Agreement
	}{{own, r.Seed, &res.Self}, {gold, r.Seed + 1, &res.Gold}} {
		sample := sampleOf(part.from, r.Sample, part.seed)
		pairs := make([]judge.Pair, len(sample))
		for i, s := range sample {
			pairs[i] = pairOf(s.q, s.d)
		}
		ls, err := lj.Judge(ctx, pairs)
		if err != nil {
			return nil, err
		}
		ratings := ratingsOf(sample, ls)
		*part.to = judge.Agree(ratings, maxGrade)
		if part.to == &res.Gold {
			res.ByGrade = byGrade(ratings, maxGrade)
		}
	}
	return res, nil
}

// rated is a pair and its reference grade.
type rated struct {
	q, d string
	g    int
}

// sampleOf is n of rs drawn with seed (all when fewer), in (query,
// document) order.
func sampleOf(rs []rated, n int, seed uint64) []rated {
	slices.SortFunc(rs, func(a, b rated) int { return cmp.Or(cmp.Compare(a.q, b.q), cmp.Compare(a.d, b.d)) })
	if len(rs) > n {
		rng := rand.New(rand.NewPCG(seed, 0x6175646974))
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		rs = rs[:n]
		slices.SortFunc(rs, func(a, b rated) int { return cmp.Or(cmp.Compare(a.q, b.q), cmp.Compare(a.d, b.d)) })
	}
	return rs
}

// ratingsOf pairs each sampled reference grade with the judge's label.
func ratingsOf(sample []rated, ls []labels.Label) []judge.Rating {
	got := map[[2]string]int{}
	for _, l := range ls {
		got[[2]string{l.Query, l.Doc}] = l.Grade
	}
	var out []judge.Rating
	for _, s := range sample {
		if g, ok := got[[2]string{s.q, s.d}]; ok {
			out = append(out, judge.Rating{Query: s.q, Doc: s.d, Ref: s.g, Got: g})
		}
	}
	return out
}

// byGrade is the agreement per reference grade.
func byGrade(rs []judge.Rating, maxGrade int) []GradeAgreement {
	out := make([]GradeAgreement, maxGrade+1)
	sum := make([]int, maxGrade+1)
	same := make([]int, maxGrade+1)
	for i := range out {
		out[i].Grade = i
	}
	for _, r := range rs {
		g := min(max(r.Ref, 0), maxGrade)
		out[g].Pairs++
		sum[g] += r.Got
		if r.Got == r.Ref {
			same[g]++
		}
	}
	for i := range out {
		if out[i].Pairs > 0 {
			out[i].Exact = float64(same[i]) / float64(out[i].Pairs)
			out[i].Mean = float64(sum[i]) / float64(out[i].Pairs)
		}
	}
	return out
}

// WriteText writes the audit: self-agreement, agreement with the golden
// set and its rows per gold grade.
func (a *AuditResult) WriteText(w io.Writer) error {
	line := func(name string, ag judge.Agreement) string {
		if ag.N == 0 {
			return fmt.Sprintf("%s: no pairs\n", name)
		}
		return fmt.Sprintf("%s: %d pairs, exact agreement %.4f, weighted kappa %s (quadratic), %s (linear)\n",
			name, ag.N, ag.Exact, kappaText(ag.KappaQuadratic), kappaText(ag.KappaLinear))
	}
	text := fmt.Sprintf("audit of %s (seed %d), asked again without the cache:\n", a.Judge, a.Seed) +
		line("self-agreement (its stored labels vs its answers now)", a.Self) +
		line("agreement with the golden set", a.Gold)
	for _, g := range a.ByGrade {
		if g.Pairs > 0 {
			text += fmt.Sprintf("  gold grade %d: %d pairs, exact %.4f, the judge's mean grade %.2f\n", g.Grade, g.Pairs, g.Exact, g.Mean)
		}
	}
	_, err := io.WriteString(w, text)
	return err
}

func kappaText(k float64) string {
	if k != k { // NaN: undefined
		return "undefined"
	}
	return fmt.Sprintf("%.4f", k)
}
