package tuner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// TrialReused is the mode of a trial whose results are another trial's
// (runs.TrialRecord.ReusedFrom): its fingerprint said it builds the same
// index and answers every query alike, so it was not run.
const TrialReused = "reused"

// reuser finds trials an earlier trial of the run already answered: the
// backend's fingerprint (backend.Fingerprinter, through
// Options.Fingerprint) hashes what a configuration builds — for the
// embedded engine the chunks it indexes — with its other settings,
// defaults applied, so chunk sizes larger than every document, or a
// baseline that leaves chunk.size at its default, fall into one group. The
// first successful trial of a group is run; the others reuse its results.
type reuser struct {
	fingerprint func(experiments.Params) (string, error)
	first       map[string]runs.TrialRecord // fingerprint -> first successful trial
	keys        map[int]string              // trial index -> fingerprint
}

func newReuser(o Options) *reuser {
	return &reuser{fingerprint: o.Fingerprint, first: map[string]runs.TrialRecord{}, keys: map[int]string{}}
}

// key is t's fingerprint, "" without one (no fingerprint function, or it
// failed: the trial then runs and fails or succeeds on its own).
func (r *reuser) key(t *trial) string {
	if r.fingerprint == nil {
		return ""
	}
	if k, ok := r.keys[t.index]; ok {
		return k
	}
	k, err := r.fingerprint(t.spec.Params)
	if err != nil {
		k = ""
	}
	r.keys[t.index] = k
	return k
}

// done notes a recorded trial: the first successful one of its
// fingerprint is reused by the later ones. A reused trial is never a
// group's first, and a pruned or failed one is not reused.
func (r *reuser) done(t *trial, rec runs.TrialRecord) {
	k := r.key(t)
	if k == "" || rec.Status != runs.StatusOK || rec.ReusedFrom != "" || rec.Fraction > 0 && rec.Fraction < 1 {
		return
	}
	if _, ok := r.first[k]; !ok {
		r.first[k] = rec
	}
}

// reuse returns t's outcome copied from the earlier trial of its
// fingerprint, and false when there is none. A replayed trial's copy
// refers to the same collection and settings (its results derive alike);
// any other's carries the per-query results read back from the run (rec
// is flushed first, so that they are on disk).
func (r *reuser) reuse(o Options, rec *recorder, t *trial) (trialOutcome, bool, error) {
	k := r.key(t)
	prev, ok := r.first[k]
	if k == "" || !ok {
		return trialOutcome{}, false, nil
	}
	out := trialOutcome{TrialRecord: prev}
	out.Index, out.Name, out.Params, out.Baseline = t.index, t.spec.Name, t.spec.Params, t.spec.Baseline
	out.Group, out.Mode, out.ReusedFrom = t.spec.Params.IndexKey(), TrialReused, prev.Name
	out.Sampler, out.Worker, out.BackendConfig = "", "", ""
	if o.Describe != nil {
		out.BackendConfig = o.Describe(t.spec.Params)
	}
	if prev.Replay != nil {
		out.batched = true
		return out, true, nil
	}
	if err := rec.flush(); err != nil {
		return trialOutcome{}, false, err
	}
	results, err := o.Run.QueryResults(prev.Index)
	if err != nil {
		return trialOutcome{}, false, fmt.Errorf("trial %q: reuse the results of %q: %w", t.spec.Name, prev.Name, err)
	}
	out.results = results
	return out, true, nil
}

// resultKeys keys every successful trial's per-query results for
// runs.Leaderboard.MarkSameResults: a hash of each query's id, routing,
// error, recorded top documents in order and primary score (rounded as
// the leaderboard rounds). Trials with equal keys rank every query alike.
// The keys pre computed while the trials ran are taken as they are; the
// others are computed on every core.
func resultKeys(run *runs.Run, trials []runs.TrialRecord, pre *preStats) (map[string]string, error) {
	keys := make([]string, len(trials))
	errs := make([]error, len(trials))
	parallelFor(len(trials), func(i int) {
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
		keys[i] = resultKey(results)
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

// resultKey is resultKeys' key of one trial's results.
func resultKey(results []runs.QueryResult) string {
	h := sha256.New()
	var line []byte
	for _, r := range results {
		line = resultKeyLine(line[:0], r)
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// resultKeyLine appends one result's line of resultKey's hash to b: its
// query id, routing and error quoted (%q), its rounded primary score (%v)
// and the quoted ids of its top documents, space-separated, then a
// newline — fmt's bytes, without fmt.
func resultKeyLine(b []byte, r runs.QueryResult) []byte {
	b = strconv.AppendQuote(b, r.QueryID)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, r.Routing)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, r.Error)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, runs.Round(r.Primary), 'g', -1, 64)
	for _, d := range r.Top {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, d.DocID)
	}
	return append(b, '\n')
}
