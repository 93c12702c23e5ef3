package analysis

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/fusiontune/fusiontune/internal/parallel"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// ResultKeys keys every successful trial's per-query results for
// runs.Leaderboard.MarkSameResults: a hash of each query's id, routing,
// error, recorded top documents in order and primary score (rounded as
// the leaderboard rounds). Trials with equal keys rank every query alike.
// The keys pre computed while the trials ran are taken as they are; the
// others are computed on every core.
func ResultKeys(run *runs.Run, trials []runs.TrialRecord, pre *Prestats) (map[string]string, error) {
	keys := make([]string, len(trials))
	errs := make([]error, len(trials))
	parallel.For(len(trials), func(i int) {
		t := trials[i]
		if t.Status != runs.StatusOK {
			return
		}
		if f, ok := pre.factsFor(t); ok {
			keys[i] = f.key
			return
		}
		computedAfter.Add(1)
		results, err := run.QueryResults(t.Index)
		if err != nil {
			errs[i] = fmt.Errorf("trial %q: %w", t.Name, err)
			return
		}
		keys[i] = ResultKey(results)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(trials))
	for i, t := range trials {
		if t.Status == runs.StatusOK {
			out[t.Name] = keys[i]
		}
	}
	return out, nil
}

// ResultKey is resultKeys' key of one trial's results.
func ResultKey(results []runs.QueryResult) string {
	h := replay.NewKeyHash()
	var line []byte
	for _, r := range results {
		line = resultKeyLine(line[:0], r)
		h.Write(line)
	}
	return h.Key()
}

// resultKeyLine appends one result's line of resultKey's hash to b: its
// query id, routing and error quoted (%q), its rounded primary score
// (replay.AppendKeyScore) and the quoted ids of its top documents,
// space-separated, then a newline.
func resultKeyLine(b []byte, r runs.QueryResult) []byte {
	b = strconv.AppendQuote(b, r.QueryID)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, r.Routing)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, r.Error)
	b = append(b, ' ')
	b = replay.AppendKeyScore(b, r.Primary)
	for _, d := range r.Top {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, d.DocID)
	}
	return append(b, '\n')
}
