package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// planSource is a fixed plan: the experiment file's trials in plan order
// (grouped by replay group when replaying, so that each group's candidate
// lists are collected once), skipping those a resumed run holds.
type planSource struct {
	trials []*trial
	pos    int
}

func newPlanSource(o Options, grouped bool) (*planSource, error) {
	recorded, err := recordedByName(o.Run)
	if err != nil {
		return nil, err
	}
	order := Flatten(Plan(o.Trials))
	src := &planSource{trials: make([]*trial, 0, len(order))}
	byKey := map[string][]*trial{}
	var keys []string
	for i, spec := range order {
		t := &trial{index: i, total: len(order), spec: spec}
		if r, ok := recorded[spec.Name]; ok && !(o.RetryFailed && r.Status == runs.StatusFailed) {
			t.recorded = &r
		}
		if !grouped {
			src.trials = append(src.trials, t)
			continue
		}
		key := replayKey(spec.Params)
		if _, ok := byKey[key]; !ok {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], t)
	}
	for _, k := range keys {
		src.trials = append(src.trials, byKey[k]...)
	}
	return src, nil
}

func (s *planSource) next(context.Context) (*trial, error) {
	if s.pos >= len(s.trials) {
		return nil, nil
	}
	s.pos++
	return s.trials[s.pos-1], nil
}

// pending lists the trials not yet run, in the order next gives them.
func (s *planSource) pending() []*trial {
	var out []*trial
	for _, t := range s.trials[s.pos:] {
		if t.recorded == nil {
			out = append(out, t)
		}
	}
	return out
}

func (s *planSource) commit(_ context.Context, _ *trial, out *trialOutcome, rec *runs.Recorder) (bool, error) {
	return false, record(rec, out)
}

func (s *planSource) abandon(*trial, string) {}

// studySource is a sampler study: the experiment file's own trials (told
// to the study as observations), then the trials the sampler proposes,
// named "<sampler>-001", …. A resumed run's recorded trials are proposed
// again (checked: the seeded sampler must propose the same parameters) and
// the study is told their recorded outcome, so the trials that follow are
// the ones an uninterrupted run would have made.
type studySource struct {
	study    *sampler.Study
	fixed    []experiments.TrialSpec
	total    int
	i        int
	sampler  string
	recorded map[int]runs.TrialRecord
}

func newStudySource(o Options, study *sampler.Study) (*studySource, error) {
	done, err := o.Run.Trials()
	if err != nil {
		return nil, err
	}
	s := &studySource{study: study, fixed: Flatten(Plan(o.Trials)), sampler: samplerName(study.Options()), recorded: map[int]runs.TrialRecord{}}
	for _, t := range done {
		s.recorded[t.Index] = t
	}
	s.total = len(s.fixed) + study.Options().Trials
	return s, nil
}

// samplerName is the study's sampler, as sampled trials are named.
func samplerName(so sampler.Options) string {
	if so.Sampler == "" {
		return sampler.Default
	}
	return so.Sampler
}

func (s *studySource) next(context.Context) (*trial, error) {
	if s.i >= s.total {
		return nil, nil
	}
	i := s.i
	s.i++
	t := &trial{index: i, total: s.total, sampled: i >= len(s.fixed)}
	var err error
	if t.sampled {
		t.p, err = s.study.Ask()
		t.spec = experiments.TrialSpec{Name: fmt.Sprintf("%s-%03d", s.sampler, i-len(s.fixed)+1), Params: t.p.Params, Origin: s.sampler}
	} else {
		t.spec = s.fixed[i]
		t.p, err = s.study.AskFixed(t.spec.Params)
	}
	if err != nil {
		return nil, err
	}
	rec, ok := s.recorded[i]
	if !ok {
		return t, nil
	}
	if rec.Name != t.spec.Name || experiments.Params(rec.Params).String() != t.spec.Params.String() {
		return nil, fmt.Errorf("resume: trial %d was %s {%s} but is now %s {%s}: the study cannot be replayed (was the sampler or experiment file changed?)",
			i, rec.Name, experiments.Params(rec.Params).String(), t.spec.Name, t.spec.Params.String())
	}
	if err := s.study.Replay(t.p, rec); err != nil {
		return nil, err
	}
	t.recorded = &rec
	return t, nil
}

func (s *studySource) commit(_ context.Context, t *trial, out *trialOutcome, rec *runs.Recorder) (bool, error) {
	if t.sampled {
		out.Sampler = s.sampler
	}
	// The study is told once the record is durable: an objective may
	// read the trial's per-query results back from the run (a latency
	// constraint does).
	if err := record(rec, out); err != nil {
		return false, err
	}
	if err := rec.Wait(); err != nil {
		return false, err
	}
	return false, s.study.Tell(t.p, out.TrialRecord)
}

func (s *studySource) abandon(*trial, string) {}

// sharedSource is one replica's share of a study kept in a shared
// database: it claims the next queued trial (the experiment file's own,
// queued once by whichever worker came first) or a new one the sampler
// fills, keeps it alive by heartbeats while it runs, and finishes it in
// the database, with its record, before recording it in this worker's run.
// Trials of workers that died are failed after the heartbeat timeout
// (queued ones re-queued), so the study completes without them.
type sharedSource struct {
	sh      Shared
	studyID int
	study   *sampler.Study // nil: nothing to sample (a file without a space)
	sampler string
	budget  int
	name    string // this replica, "WORKER/R"
	claims  map[*trial]studystore.Claim
}

func (s *sharedSource) next(ctx context.Context) (*trial, error) {
	store := s.sh.Store
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := store.ReapStale(ctx, s.studyID, s.sh.Timeout, time.Now()); err != nil {
			return nil, err
		}
		claim, outcome, err := store.Next(ctx, s.studyID, s.budget, s.name)
		if err != nil {
			return nil, err
		}
		switch outcome {
		case studystore.Done:
			return nil, nil
		case studystore.Busy:
			// Other workers hold the remaining trials; one may die and
			// free its slot, so wait a little and look again.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(min(s.sh.Beat, busyPoll)):
			}
			continue
		}
		t, err := s.propose(claim)
		if err != nil {
			_ = store.Abandon(context.WithoutCancel(ctx), claim.TrialID, s.name, err.Error())
			return nil, err
		}
		t.done = store.KeepAlive(ctx, claim.TrialID, s.name, s.sh.Beat)
		s.claims[t] = claim
		return t, nil
	}
}

// propose turns a claim into the trial to run: a queued trial's spec, or
// parameters the sampler proposes. Sampled trials may be pruned; the
// experiment file's own trials run to the end.
func (s *sharedSource) propose(c studystore.Claim) (*trial, error) {
	t := &trial{index: c.Number, total: s.budget}
	if c.Spec != "" {
		if err := json.Unmarshal([]byte(c.Spec), &t.spec); err != nil {
			return nil, fmt.Errorf("queued trial %d: spec: %w", c.Number, err)
		}
		if s.study == nil {
			t.p = sampler.Proposal{ID: c.TrialID, Number: c.Number, Params: t.spec.Params}
			return t, nil
		}
		var err error
		t.p, err = s.study.AskFixedTrial(c.TrialID, t.spec.Params)
		return t, err
	}
	if s.study == nil {
		return nil, fmt.Errorf("trial %d: nothing to sample (the experiment file has no space)", c.Number)
	}
	p, err := s.study.AskTrial(c.TrialID)
	t.p, t.sampled = p, true
	t.spec = experiments.TrialSpec{Name: fmt.Sprintf("%s-%03d", s.sampler, c.Number+1), Params: p.Params, Origin: s.sampler}
	return t, err
}

// commit tells the database the outcome with the record (and its
// per-query results, so that every worker can compare the study's
// trials: see importStudy), then records the trial in this worker's run,
// only once the study accepted it.
func (s *sharedSource) commit(ctx context.Context, t *trial, out *trialOutcome, rec *runs.Recorder) (bool, error) {
	claim := s.claims[t]
	delete(s.claims, t)
	beatErr := t.done()
	if t.sampled {
		out.Sampler = s.sampler
	}
	out.Worker = s.name
	state := "FAIL"
	switch out.Status {
	case runs.StatusOK:
		state = "COMPLETE"
	case runs.StatusPruned:
		state = "PRUNED"
	}
	data, err := runs.MarshalJSON(sharedRecord{TrialRecord: out.TrialRecord, QueryResults: out.results})
	if err != nil {
		return false, fmt.Errorf("trial %q: %w", out.Name, err)
	}
	told := out.Primary
	if s.study != nil {
		if told, err = s.study.Value(out.TrialRecord, out.results); err != nil {
			return false, err
		}
	}
	err = s.sh.Store.Finish(context.WithoutCancel(ctx), claim.TrialID, state, told, s.name, data)
	if errors.Is(err, studystore.ErrTrialLost) {
		// Too slow to beat (beatErr says why): another worker failed this
		// trial and its slot went to someone else.
		out.TrialRecord = runs.TrialRecord{Name: t.spec.Name, Status: runs.StatusFailed,
			Error: fmt.Sprintf("lost to the heartbeat rule: %v", errors.Join(err, beatErr))}
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, record(rec, out)
}

// abandon gives the trial back rather than wait for the timeout.
func (s *sharedSource) abandon(t *trial, why string) {
	claim, ok := s.claims[t]
	if !ok {
		return
	}
	delete(s.claims, t)
	_ = t.done()
	_ = s.sh.Store.Abandon(context.Background(), claim.TrialID, s.name, why)
}
