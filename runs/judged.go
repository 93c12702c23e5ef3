package runs

import (
	"fmt"
	"math"
	"strings"
)

// JudgedOnlySuffix marks a judged-only column: "NDCG@10_J" is NDCG@10 of
// the condensed list (unjudged documents removed before scoring, as
// trec_eval -J does).
const JudgedOnlySuffix = "_J"

// Unjudged-warning measures: the gap of WarnMetric between the best two
// trials is set against the gap of WarnCoverage (see UnjudgedWarning).
const (
	WarnMetric   = "NDCG@10"
	WarnCoverage = "Judged@10"
	// WarnCoverageGap is the smallest Judged@10 gap the first rule counts:
	// one more judged document in the top 10 of one query in ten.
	WarnCoverageGap = 0.01
)

// judgedOnlyColumns lists the judged-only columns the tables show: none
// unless ShowJudgedOnly, else "M_J" for each metric of lb.Metrics that some
// trial has a judged-only value of.
func (lb Leaderboard) judgedOnlyColumns() []string {
	if !lb.ShowJudgedOnly {
		return nil
	}
	var out []string
	for _, m := range lb.Metrics {
		for _, e := range lb.Trials {
			if _, ok := e.JudgedOnly[m]; ok {
				out = append(out, m+JudgedOnlySuffix)
				break
			}
		}
	}
	return out
}

// metric returns the trial's value of a scorecard metric or of a
// judged-only column ("M_J").
func (e Entry) metric(name string) (float64, bool) {
	if v, ok := e.Scorecard[name]; ok {
		return v, true
	}
	if m, ok := strings.CutSuffix(name, JudgedOnlySuffix); ok {
		v, ok := e.JudgedOnly[m]
		return v, ok
	}
	return 0, false
}

// SetJudgedOnly records each trial's judged-only means (trial name ->
// metric -> value, rounded as every score) and adds the unjudged warning
// when it applies.
func (lb *Leaderboard) SetJudgedOnly(values map[string]map[string]float64) {
	for i := range lb.Trials {
		e := &lb.Trials[i]
		e.JudgedOnly = nil
		if v, ok := values[e.Name]; ok && len(v) > 0 {
			e.JudgedOnly = roundMap(v)
		}
	}
	if w := lb.UnjudgedWarning(); w != "" {
		lb.Warnings = append(lb.Warnings, w)
	}
}

// UnjudgedWarning says when the best two successful trials (with results
// of their own) differ mainly in unjudged documents, "" otherwise. With A
// the leaderboard's first and B its second, it warns when either
//
//   - |NDCG@10(A) - NDCG@10(B)| < |Judged@10(A) - Judged@10(B)| and the
//     latter is at least WarnCoverageGap: the two trials' top 10s differ
//     more in how much of them is judged than their scores differ, so the
//     order may be an artefact of which documents happen to be judged; or
//   - the judged-only NDCG@10 orders them the other way round (both
//     differences non-zero and of opposite signs).
//
// It needs NDCG@10 and Judged@10 in the scorecard (the default reported
// metrics) and, for the second rule, the trials' judged-only values.
func (lb Leaderboard) UnjudgedWarning() string {
	var top []Entry
	for _, e := range lb.Trials {
		if e.Status == StatusOK && e.SameAs == "" {
			top = append(top, e)
			if len(top) == 2 {
				break
			}
		}
	}
	if len(top) < 2 {
		return ""
	}
	a, b := top[0], top[1]
	na, okA := a.Scorecard[WarnMetric]
	nb, okB := b.Scorecard[WarnMetric]
	ja, okJA := a.Scorecard[WarnCoverage]
	jb, okJB := b.Scorecard[WarnCoverage]
	if !okA || !okB || !okJA || !okJB {
		return ""
	}
	gap, jgap := round(na-nb), round(ja-jb)
	var why []string
	if math.Abs(jgap) >= WarnCoverageGap && math.Abs(gap) < math.Abs(jgap) {
		why = append(why, fmt.Sprintf("their %s gap %.4f is smaller than their %s gap %.4f", WarnMetric, math.Abs(gap), WarnCoverage, math.Abs(jgap)))
	}
	xa, okXA := a.JudgedOnly[WarnMetric]
	xb, okXB := b.JudgedOnly[WarnMetric]
	if okXA && okXB {
		if jo := round(xa - xb); gap != 0 && jo != 0 && (gap > 0) != (jo > 0) {
			why = append(why, fmt.Sprintf("judged-only %s orders them the other way (%.4f vs %.4f)", WarnMetric, xa, xb))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("the top two trials %s and %s differ mainly in unjudged documents: %s; judge their unjudged hits (tune judge pool RUN --trials top:2)",
		a.Name, b.Name, strings.Join(why, "; "))
}

// Rescored is what the judge-as-you-tune loop did: rounds of pooling and
// judging, after which every trial was scored again from its recorded
// results with the new labels.
type Rescored struct {
	// Judge names the judge; Budget is the most labels it could spend,
	// Target the Judged@K of the leading trials the loop stopped at.
	Judge  string  `json:"judge"`
	Budget int     `json:"budget"`
	Target float64 `json:"target"`
	K      int     `json:"k"`
	// Leading is how many of the best trials the coverage is measured on
	// and the pool drawn from.
	Leading int `json:"leading"`
	// Stopped says why the loop ended: "target", "budget", "rounds",
	// "pool empty", "decision settled" or "no trials".
	Stopped string          `json:"stopped"`
	Rounds  []RescoredRound `json:"rounds"`
	// Before and After are the trials' orders (best first) and primary
	// scores, both scored from the recorded results (the top hits the run
	// keeps), before the first round and after the last.
	Before []RescoredTrial `json:"before"`
	After  []RescoredTrial `json:"after"`
	// KendallTau is the rank correlation of the two orders.
	KendallTau float64 `json:"kendall_tau"`
}

// RescoredRound is one round of the loop.
type RescoredRound struct {
	Round int `json:"round"`
	// Pooled is the pool's size, Asked the pairs sent to the judge (what
	// the budget counts), Labels those it labelled (a file judge labels
	// only the pairs its file judges).
	Pooled int `json:"pooled"`
	Asked  int `json:"asked"`
	Labels int `json:"labels"`
	// Coverage is the leading trials' mean Judged@K after the round.
	Coverage float64 `json:"coverage"`
	// Best is the leaderboard's best trial after the round.
	Best string `json:"best"`
}

// RescoredTrial is one trial's place in a Rescored order.
type RescoredTrial struct {
	Name     string  `json:"name"`
	Primary  float64 `json:"primary"`
	Coverage float64 `json:"coverage"`
}

// Line renders r as one paragraph for the text leaderboard.
func (r *Rescored) Line() string {
	labels, asked := 0, 0
	for _, rd := range r.Rounds {
		labels += rd.Labels
		asked += rd.Asked
	}
	cov := 0.0
	if n := len(r.Rounds); n > 0 {
		cov = r.Rounds[n-1].Coverage
	}
	before, after := "—", "—"
	if len(r.Before) > 0 {
		before = r.Before[0].Name
	}
	if len(r.After) > 0 {
		after = r.After[0].Name
	}
	return fmt.Sprintf("rescored by judge %s: %d rounds, %d pairs asked of a budget of %d, %d labels; Judged@%d of the top %d %.4f (target %.2f, stopped: %s); best before %s, after %s; Kendall tau of the orders %.4f",
		r.Judge, len(r.Rounds), asked, r.Budget, labels, r.K, r.Leading, cov, r.Target, r.Stopped, before, after, r.KendallTau)
}

// rescoredShown is how many trials the text tables list before and after.
const rescoredShown = 5

// Lines renders r for the text and Markdown leaderboards: the summary
// line, then the best trials after rescoring with their place before.
func (r *Rescored) Lines() []string {
	out := []string{r.Line()}
	was := map[string]int{}
	for i, t := range r.Before {
		was[t.Name] = i + 1
	}
	for i, t := range r.After {
		if i == rescoredShown {
			break
		}
		before := "—"
		if p, ok := was[t.Name]; ok {
			before = fmt.Sprintf("#%d %.4f", p, r.Before[p-1].Primary)
		}
		out = append(out, fmt.Sprintf("rescored #%d %s: %.4f, Judged@%d %.4f (before: %s)", i+1, t.Name, t.Primary, r.K, t.Coverage, before))
	}
	return out
}
