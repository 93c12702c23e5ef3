package decision

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// StrategyDepth and StrategyDecision name the ways a pool is chosen: the
// top ranks of the leading trials (package pool) or the pairs that can
// change the decision (Analyze).
const (
	StrategyDepth    = "depth"
	StrategyDecision = "decision"
)

// Strategies lists the pool strategies, the default first.
var Strategies = []string{StrategyDepth, StrategyDecision}

// Roles of the trial the leader is compared with.
const (
	RoleBaseline = "baseline"
	RoleRunnerUp = "runner-up"
	// RoleChallenger is any other trial that some labelling of the
	// unjudged pairs could still put ahead of the leader.
	RoleChallenger = "challenger"
)

// Trial is one trial's recorded per-query results.
type Trial struct {
	Name    string
	Results []runs.QueryResult
}

// Input is what Analyze weighs.
type Input struct {
	// Trials are the candidates (at least one); Baseline names the one
	// the leader must beat ("" or absent: no baseline comparison).
	Trials   []Trial
	Baseline string
	// Judgments are the judgments so far (query -> doc -> grade).
	Judgments scoring.Judgments
	// Skip, when set, leaves a pair out as if it were judged (a pair asked
	// before that got no label).
	Skip func(query, doc string) bool
	// Scorer scores one query's ranking; MaxGrade is the scale's top grade
	// (>= 1), the grade of the best labelling.
	Scorer   scoring.Scorer
	MaxGrade int
	// Dataset fills the pairs' Dataset.
	Dataset string
}

// Comparison bounds the leader's lead over one other trial.
type Comparison struct {
	Role  string `json:"role"`
	Other string `json:"other"`
	// Delta is the mean difference of primary scores (leader - other)
	// under the judgments so far; Low and High under the worst and the
	// best labelling of the unjudged pairs.
	Delta float64 `json:"delta"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Unjudged counts the pairs whose label can move the difference.
	Unjudged int `json:"unjudged"`
	// Holds says the leader stays ahead under the worst labelling (or
	// nothing unjudged can move the difference).
	Holds bool `json:"holds"`
}

// Analysis is where the decision stands.
type Analysis struct {
	// Leader, RunnerUp and Baseline name the trials ("" when absent);
	// Ship is true when the leader is not the baseline.
	Leader   string `json:"leader"`
	RunnerUp string `json:"runner_up,omitempty"`
	Baseline string `json:"baseline,omitempty"`
	Ship     bool   `json:"ship"`
	// Primary is each trial's mean primary score, in Input order.
	Primary map[string]float64 `json:"primary"`
	// Comparisons are the leader against the baseline, then against the
	// runner-up (once when they are the same trial).
	Comparisons []Comparison `json:"comparisons"`
	// Settled is true when every comparison holds.
	Settled bool `json:"settled"`
	// Pairs are the unjudged pairs that can move an open comparison, by
	// Priority (the sum over the open comparisons of how far the pair's
	// top grade alone moves the mean difference) descending.
	Pairs []pool.Pair `json:"-"`
}

// query is one query's rankings by trial (nil: failed, scored 0 when
// zero) and whether it counts.
type query struct {
	id       string
	rankings map[string][]string
}

// Analyze weighs the decision in (see the package doc).
func Analyze(in Input) (*Analysis, error) {
	if len(in.Trials) == 0 {
		return nil, errors.New("decision: no trials")
	}
	if in.MaxGrade < 1 {
		return nil, fmt.Errorf("decision: top grade must be >= 1 (got %d)", in.MaxGrade)
	}
	if in.Scorer == nil {
		return nil, errors.New("decision: no scorer")
	}
	qs := queriesOf(in.Trials, in.Judgments)
	a := &Analysis{Primary: map[string]float64{}}
	for _, t := range in.Trials {
		a.Primary[t.Name] = meanPrimary(qs, t.Name, in)
	}
	order := make([]string, 0, len(in.Trials))
	for _, t := range in.Trials {
		order = append(order, t.Name)
	}
	slices.SortStableFunc(order, func(x, y string) int {
		return cmp.Or(cmp.Compare(a.Primary[y], a.Primary[x]), cmp.Compare(x, y))
	})
	a.Leader = order[0]
	if len(order) > 1 {
		a.RunnerUp = order[1]
	}
	if _, ok := a.Primary[in.Baseline]; ok {
		a.Baseline = in.Baseline
	}
	a.Ship = a.Baseline != "" && a.Leader != a.Baseline
	var others []Comparison
	if a.Ship {
		others = append(others, Comparison{Role: RoleBaseline, Other: a.Baseline})
	}
	if a.RunnerUp != "" && a.RunnerUp != a.Baseline {
		others = append(others, Comparison{Role: RoleRunnerUp, Other: a.RunnerUp})
	}
	for _, name := range order[1:] {
		if name != a.RunnerUp && name != a.Baseline && mayOvertake(a.Leader, name, qs, in) {
			others = append(others, Comparison{Role: RoleChallenger, Other: name})
		}
	}
	swing := map[pairKey]*pairAcc{}
	a.Settled = true
	for _, c := range others {
		effects := compare(&c, a.Leader, qs, in)
		a.Comparisons = append(a.Comparisons, c)
		if c.Holds {
			continue
		}
		a.Settled = false
		for k, e := range effects {
			acc := swing[k]
			if acc == nil {
				acc = &pairAcc{best: math.MaxInt}
				swing[k] = acc
			}
			acc.prio += math.Abs(e.effect)
			acc.best = min(acc.best, e.best)
			acc.sources |= e.sources
		}
	}
	a.Pairs = pairsOf(swing, in.Dataset)
	return a, nil
}

// queriesOf gathers each query's ranking per trial, the queries with
// judgments only, sorted by id.
func queriesOf(trials []Trial, j scoring.Judgments) []query {
	byID := map[string]*query{}
	for _, t := range trials {
		for _, r := range t.Results {
			if len(j[r.QueryID]) == 0 {
				continue
			}
			if r.Error != "" && r.OnError != "zero" {
				continue
			}
			q := byID[r.QueryID]
			if q == nil {
				q = &query{id: r.QueryID, rankings: map[string][]string{}}
				byID[r.QueryID] = q
			}
			var docs []string
			if r.Error == "" {
				docs = make([]string, 0, len(r.Top))
				for _, d := range r.Top {
					docs = append(docs, d.DocID)
				}
			}
			q.rankings[t.Name] = docs
		}
	}
	out := make([]query, 0, len(byID))
	for _, q := range byID {
		out = append(out, *q)
	}
	slices.SortFunc(out, func(x, y query) int { return cmp.Compare(x.id, y.id) })
	return out
}

// primary scores one ranking (nil: a failed query, 0).
func primary(sc scoring.Scorer, ranking []string, j map[string]int) float64 {
	if ranking == nil {
		return 0
	}
	_, p := sc.Score(ranking, j)
	return p
}

// meanPrimary is trial's mean primary score over the queries it answered
// (as scoring.ScoreRecorded averages).
func meanPrimary(qs []query, trial string, in Input) float64 {
	sum, n := 0.0, 0
	for _, q := range qs {
		r, ok := q.rankings[trial]
		if !ok {
			continue
		}
		sum += primary(in.Scorer, r, in.Judgments[q.id])
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// pairKey names a (query, document) pair.
type pairKey struct{ q, d string }

// effect is how far one pair's top grade alone moves a comparison's mean
// difference, its best rank in the two trials and which of them rank it
// (bit 0 the leader, bit 1 the other).
type effect struct {
	effect  float64
	best    int
	sources int
}

// compare fills c's bounds for leader against c.Other over the queries
// both answered, and returns each movable pair's effect.
func compare(c *Comparison, leader string, qs []query, in Input) map[pairKey]effect {
	effects := map[pairKey]effect{}
	var sum, low, high float64
	n := 0
	for _, q := range qs {
		rl, okL := q.rankings[leader]
		ro, okO := q.rankings[c.Other]
		if !okL || !okO {
			continue
		}
		n++
		j := cloneGrades(in.Judgments[q.id])
		d0 := primary(in.Scorer, rl, j) - primary(in.Scorer, ro, j)
		sum += d0
		var up, down []string
		for _, cand := range candidates(rl, ro, j, q.id, in.Skip) {
			j[cand.doc] = in.MaxGrade
			e := primary(in.Scorer, rl, j) - primary(in.Scorer, ro, j) - d0
			delete(j, cand.doc)
			switch {
			case e > 0:
				up = append(up, cand.doc)
			case e < 0:
				down = append(down, cand.doc)
			default:
				continue
			}
			effects[pairKey{q.id, cand.doc}] = effect{effect: e, best: cand.best, sources: cand.sources}
		}
		low += labelled(in, rl, ro, j, down, up)
		high += labelled(in, rl, ro, j, up, down)
	}
	c.Unjudged = len(effects)
	if n > 0 {
		for k, e := range effects {
			e.effect /= float64(n) // a query's share of the mean
			effects[k] = e
		}
		c.Delta = round(sum / float64(n))
		c.Low = round(low / float64(n))
		c.High = round(high / float64(n))
	}
	c.Holds = c.Low > 0 || c.Unjudged == 0
	return effects
}

// mayOvertake is a quick look at whether some labelling could put other
// ahead of leader: each unjudged document the two rank is graded the top
// grade where other ranks it higher (or only other ranks it) and 0
// elsewhere, and other must still trail. A trial that trails even then is
// not weighed document by document.
func mayOvertake(leader, other string, qs []query, in Input) bool {
	var sum float64
	n := 0
	for _, q := range qs {
		rl, okL := q.rankings[leader]
		ro, okO := q.rankings[other]
		if !okL || !okO {
			continue
		}
		n++
		j := cloneGrades(in.Judgments[q.id])
		var top, zero []string
		for _, c := range candidates(rl, ro, j, q.id, in.Skip) {
			if rankOf(ro, c.doc) < rankOf(rl, c.doc) {
				top = append(top, c.doc)
			} else {
				zero = append(zero, c.doc)
			}
		}
		sum += labelled(in, rl, ro, j, top, zero)
	}
	return n > 0 && sum <= 0
}

// rankOf is d's 0-based rank in r, len(r) when absent.
func rankOf(r []string, d string) int {
	for i, x := range r {
		if x == d {
			return i
		}
	}
	return len(r)
}

// labelled is the leader's lead in one query with top grades on top and
// zeros on zero (j is restored).
func labelled(in Input, rl, ro []string, j map[string]int, top, zero []string) float64 {
	for _, d := range top {
		j[d] = in.MaxGrade
	}
	for _, d := range zero {
		j[d] = 0
	}
	v := primary(in.Scorer, rl, j) - primary(in.Scorer, ro, j)
	for _, d := range top {
		delete(j, d)
	}
	for _, d := range zero {
		delete(j, d)
	}
	return v
}

// candidate is an unjudged document of either ranking.
type candidate struct {
	doc     string
	best    int
	sources int
}

// candidates are the unjudged documents of the leader's ranking rl and
// the other's ro, in first-seen order.
func candidates(rl, ro []string, j map[string]int, q string, skip func(q, d string) bool) []candidate {
	idx := map[string]int{}
	var out []candidate
	for bit, r := range [][]string{rl, ro} {
		for rank, d := range r {
			if _, judged := j[d]; judged || (skip != nil && skip(q, d)) {
				continue
			}
			i, ok := idx[d]
			if !ok {
				i = len(out)
				idx[d] = i
				out = append(out, candidate{doc: d, best: rank + 1})
			}
			out[i].best = min(out[i].best, rank+1)
			out[i].sources |= 1 << bit
		}
	}
	return out
}

func cloneGrades(j map[string]int) map[string]int {
	out := make(map[string]int, len(j)+8)
	for d, g := range j {
		out[d] = g
	}
	return out
}

// pairAcc sums a pair's effects over the open comparisons.
type pairAcc struct {
	prio    float64
	best    int
	sources int
}

// pairsOf turns the accumulated swings into pool pairs, best first (ties
// by query and document id).
func pairsOf(swing map[pairKey]*pairAcc, dataset string) []pool.Pair {
	out := make([]pool.Pair, 0, len(swing))
	for k, a := range swing {
		out = append(out, pool.Pair{Dataset: dataset, Query: k.q, Doc: k.d, Priority: round(a.prio), Trials: bits(a.sources), BestRank: a.best})
	}
	slices.SortFunc(out, func(x, y pool.Pair) int {
		return cmp.Or(cmp.Compare(y.Priority, x.Priority), cmp.Compare(x.BestRank, y.BestRank), cmp.Compare(x.Query, y.Query), cmp.Compare(x.Doc, y.Doc))
	})
	return out
}

func bits(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// round keeps 6 decimals so that the output is stable across platforms.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// WriteText writes where the decision stands: the decision, each
// comparison's difference now and its bounds, and whether it is settled.
func (a *Analysis) WriteText(w io.Writer) error {
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	switch {
	case a.Ship:
		p("decision: ship %q (primary %.4f) over the baseline %q (%.4f)\n", a.Leader, a.Primary[a.Leader], a.Baseline, a.Primary[a.Baseline])
	case a.Baseline != "":
		p("decision: keep the baseline %q (primary %.4f): it leads\n", a.Leader, a.Primary[a.Leader])
	default:
		p("decision: %q leads (primary %.4f); the run has no baseline\n", a.Leader, a.Primary[a.Leader])
	}
	open := 0
	for _, c := range a.Comparisons {
		state := "open"
		if c.Holds {
			state = "holds"
		} else if c.Role == RoleChallenger {
			open++
		}
		if c.Role != RoleChallenger {
			p("  vs the %s %q: %s now, [%s, %s] under the worst and best labelling of %d unjudged pairs: %s\n",
				c.Role, c.Other, signed(c.Delta), signed(c.Low), signed(c.High), c.Unjudged, state)
		}
	}
	if open > 0 {
		p("  vs %d other trials some labelling could still put ahead: open\n", open)
	}
	if a.Settled {
		p("settled: no unjudged pair can change the decision\n")
	} else {
		p("open: %d unjudged pairs can change the decision\n", len(a.Pairs))
	}
	return err
}

func signed(x float64) string { return fmt.Sprintf("%+.4f", x) }
