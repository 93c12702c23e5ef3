package tuner

import (
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

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
func (r *reuser) reuse(o Options, rec *runs.Recorder, t *trial) (trialOutcome, bool, error) {
	k := r.key(t)
	prev, ok := r.first[k]
	if k == "" || !ok {
		return trialOutcome{}, false, nil
	}
	out := trialOutcome{TrialRecord: prev}
	out.Index, out.Name, out.Params, out.Baseline = t.index, t.spec.Name, t.spec.Params, t.spec.Baseline
	out.Group, out.Mode, out.ReusedFrom = t.spec.Params.IndexKey(), runs.TrialReused, prev.Name
	out.Sampler, out.Worker, out.BackendConfig = "", "", ""
	if o.Describe != nil {
		out.BackendConfig = o.Describe(t.spec.Params)
	}
	if prev.Replay != nil {
		out.batched = true
		return out, true, nil
	}
	if err := rec.Flush(); err != nil {
		return trialOutcome{}, false, err
	}
	results, err := o.Run.QueryResults(prev.Index)
	if err != nil {
		return trialOutcome{}, false, fmt.Errorf("trial %q: reuse the results of %q: %w", t.spec.Name, prev.Name, err)
	}
	out.results = results
	return out, true, nil
}
