package tuner

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/metrics"
	"github.com/fusiontune/fusiontune/runs"
)

// JudgedOnlyMetrics returns the metrics of names that get a judged-only
// (condensed-list) value: every metric with a cutoff of 1..TopRecorded
// (the recorded top hits are what the condensed list is cut from) except
// Judged@k, which is 1 on a condensed list by definition.
func JudgedOnlyMetrics(names []string) []string {
	var out []string
	for _, n := range names {
		m, err := metrics.ParseMetric(n)
		if err != nil || m.Kind == metrics.Judged || m.K < 1 || m.K > TopRecorded {
			continue
		}
		out = append(out, m.String())
	}
	return out
}

// Judgments is a golden set's judgments by query: query -> doc -> grade.
type Judgments map[string]map[string]int

// JudgmentsOf collects the judgments of queries.
func JudgmentsOf(queries []Query) Judgments {
	j := make(Judgments, len(queries))
	for _, q := range queries {
		j[q.ID] = q.Judgments
	}
	return j
}

// RecordedScores is a trial scored again from its recorded results.
type RecordedScores struct {
	Scorecard  map[string]float64
	Primary    float64
	JudgedOnly map[string]float64
	// Queries is how many queries the means are over.
	Queries int
}

// ScoreRecorded scores a trial's recorded results under judgments: each
// query's recorded top hits (TopRecorded of them; a metric deeper than
// that sees nothing beyond) with sc, and the condensed list of those hits
// (metrics.Condense) for the judgedOnly metrics. The means are over the
// queries that have judgments and did not fail; a failed query scored
// under eval.on_query_error zero counts as 0 on every measure.
func ScoreRecorded(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string) RecordedScores {
	return scoreRecorded(results, judgments, sc, judgedOnly, true)
}

// judgedOnlyOf is ScoreRecorded's JudgedOnly values, without scoring the
// scorecard (the same sums in the same order: the same values).
func judgedOnlyOf(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string) map[string]float64 {
	return scoreRecorded(results, judgments, sc, judgedOnly, false).JudgedOnly
}

// scoreRecorded is ScoreRecorded; without full, only its JudgedOnly
// values and Queries.
func scoreRecorded(results []runs.QueryResult, judgments Judgments, sc Scorer, judgedOnly []string, full bool) RecordedScores {
	out := RecordedScores{Scorecard: map[string]float64{}, JudgedOnly: map[string]float64{}}
	for _, m := range sc.Metrics() {
		out.Scorecard[m] = 0
	}
	for _, m := range judgedOnly {
		out.JudgedOnly[m] = 0
	}
	for _, r := range results {
		j := judgments[r.QueryID]
		if len(j) == 0 {
			continue
		}
		if r.Error != "" {
			if r.OnError == "zero" {
				out.Queries++
			}
			continue
		}
		ranking := make([]string, len(r.Top))
		for i, d := range r.Top {
			ranking[i] = d.DocID
		}
		if full {
			scores, primary := sc.Score(ranking, j)
			for m, v := range scores {
				out.Scorecard[m] += v
			}
			out.Primary += primary
		}
		if len(judgedOnly) > 0 {
			cond, _ := sc.Score(metrics.Condense(ranking, metrics.Judgments(j)), j)
			for _, m := range judgedOnly {
				out.JudgedOnly[m] += cond[m]
			}
		}
		out.Queries++
	}
	if out.Queries > 0 {
		n := float64(out.Queries)
		for m := range out.Scorecard {
			out.Scorecard[m] /= n
		}
		for m := range out.JudgedOnly {
			out.JudgedOnly[m] /= n
		}
		out.Primary /= n
	}
	return out
}

// SetJudgedOnly gives each successful trial of lb its judged-only values
// (JudgedOnlyMetrics of the scorecard, from its recorded results under
// judgments) and adds the leaderboard's unjudged warning when it applies
// (runs.Leaderboard.UnjudgedWarning).
// It stops with ctx's error when ctx is done (an interrupted analysis).
func SetJudgedOnly(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, judgments Judgments, sc Scorer) error {
	return setJudgedOnly(ctx, run, lb, judgments, sc, nil, nil)
}

// setJudgedOnly is SetJudgedOnly taking the values of the trials whose
// records pre computed them for (records: by index; nil: none), the others
// computed on every core.
func setJudgedOnly(ctx context.Context, run *runs.Run, lb *runs.Leaderboard, judgments Judgments, sc Scorer, pre *preStats, records map[int]runs.TrialRecord) error {
	names := JudgedOnlyMetrics(sc.Metrics())
	if len(names) == 0 {
		return nil
	}
	got := make([]map[string]float64, len(lb.Trials))
	errs := make([]error, len(lb.Trials))
	parallelFor(len(lb.Trials), func(i int) {
		e := lb.Trials[i]
		if e.Status != runs.StatusOK {
			return
		}
		if rec, ok := records[e.Index]; ok {
			if f, ok := pre.factsFor(rec); ok && f.judged != nil {
				got[i] = f.judged
				return
			}
		}
		if err := ctx.Err(); err != nil {
			errs[i] = err
			return
		}
		computedAfter.Add(1)
		results, err := run.QueryResults(e.Index)
		if err != nil {
			errs[i] = fmt.Errorf("judged-only scores: trial %q: %w", e.Name, err)
			return
		}
		got[i] = judgedOnlyOf(results, judgments, sc, names)
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	values := map[string]map[string]float64{}
	for i, e := range lb.Trials {
		if got[i] != nil {
			values[e.Name] = got[i]
		}
	}
	lb.SetJudgedOnly(values)
	return nil
}
