package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// Shared configures a worker on a study kept in a shared database.
type Shared struct {
	// Store is the open study database.
	Store *studystore.Store
	// Worker names this worker (unique among the study's workers); replica
	// r of it claims trials as "Worker/r".
	Worker string
	// Beat is how often a running trial's heartbeat is renewed, Timeout
	// how long a trial may go without one before a worker fails it
	// (defaults: studystore.DefaultHeartbeatInterval and
	// DefaultHeartbeatTimeout).
	Beat, Timeout time.Duration
	// Primary and Metrics describe the score; every worker of a study must
	// use the same (checked through the study's attributes).
	Primary string
	Metrics []string
}

// Study attributes the workers of one study agree on.
const (
	attrPrimary = "fusiontune:primary"
	attrMetrics = "fusiontune:metrics"
)

// SearchShared runs a worker of a study shared through sh.Store, with one
// goroutine per backend replica (replicas[r] differ only in Backend and
// share Run). The experiment file's own trials (replicas[0].Trials) are
// queued in the study once, by whichever worker comes first; then every
// replica claims the next queued trial, or a new trial the sampler fills,
// until the study holds so.Trials sampled trials beside the queued ones.
// A claimed trial is kept alive by heartbeats, finished in the storage
// together with its record, then recorded in this worker's run. Trials of
// workers that died are failed after sh.Timeout (queued ones re-queued),
// so the study completes without them.
//
// Every trial runs live: fusion replay (Options.Replay) is for Sweep and
// Search in one process, and SearchShared refuses ModeReplay.
func SearchShared(ctx context.Context, replicas []Options, so StudyOptions, sh Shared) (*Result, error) {
	if len(replicas) == 0 {
		return nil, errors.New("shared study: no backend replica")
	}
	if r := replicas[0].Replay; r != nil && r.Mode == ModeReplay {
		return nil, errors.New("shared study: replay mode is not supported (a shared study runs every trial live): use live or auto")
	}
	if sh.Beat <= 0 {
		sh.Beat = studystore.DefaultHeartbeatInterval
	}
	if sh.Timeout <= 0 {
		sh.Timeout = studystore.DefaultHeartbeatTimeout
	}
	if so.StudyName == "" {
		so.StudyName = DefaultStudyName
	}
	// Create the study (or join it) once, with retries for workers that
	// start together; each replica then loads it with its own sampler.
	g, err := sh.Store.Study(so.StudyName, goptuna.StudyDirectionMaximize)
	if err != nil {
		return nil, err
	}
	metrics, _ := json.Marshal(sh.Metrics)
	for _, kv := range [][2]string{{attrPrimary, sh.Primary}, {attrMetrics, string(metrics)}} {
		if err := sh.Store.EnsureStudyAttr(ctx, g.ID, kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("study %q: %w", so.StudyName, err)
		}
	}
	fixed := Flatten(Plan(replicas[0].Trials))
	specs := make([]string, len(fixed))
	for i, f := range fixed {
		// Where the trial is written (file:line:col) differs from worker
		// to worker, as the experiment file's path does: the queue holds
		// what the trial is, so workers on other paths or machines agree.
		f.Pos = ""
		data, err := json.Marshal(f)
		if err != nil {
			return nil, fmt.Errorf("queue trial %q: %w", f.Name, err)
		}
		specs[i] = string(data)
	}
	if _, err := sh.Store.EnqueueOnce(ctx, g.ID, specs); err != nil {
		return nil, fmt.Errorf("study %q: %w", so.StudyName, err)
	}
	budget := len(fixed) + so.Trials

	res := &Result{}
	var mu sync.Mutex
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &sharedWorker{o: replicas[r], sh: sh, budget: budget, name: fmt.Sprintf("%s/%d", sh.Worker, r)}
			if w.o.Progress == nil {
				w.o.Progress = nopProgress{}
			}
			// Without a space there is nothing to sample: only the
			// queued trials run, with no sampler study beside them.
			var study *Study
			if len(so.Space) > 0 {
				rso := so
				rso.Storage, rso.LoadIfExists = sh.Store.Storage, true
				rso.Seed = ReplicaSeed(so.Seed, w.name)
				var err error
				if study, err = NewStudy(rso); err != nil {
					errs[r] = err
					return
				}
			}
			errs[r] = w.run(ctx, g.ID, study, func(rec runs.TrialRecord, restarts int) {
				mu.Lock()
				defer mu.Unlock()
				res.Trials = append(res.Trials, rec)
				res.Restarts += restarts
			})
		}()
	}
	wg.Wait()
	return res, errors.Join(errs...)
}

// ReplicaSeed derives the sampler seed of one worker replica from the
// study's seed and the replica's name, so that workers sharing a study do
// not propose the same trials, and the same worker name proposes the same
// ones again.
func ReplicaSeed(seed int64, name string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return int64(h.Sum64() & (1<<62 - 1))
}

// busyPoll is how often an idle replica looks for a freed slot or the end
// of the study.
const busyPoll = 250 * time.Millisecond

// sharedWorker is one replica's claim-run-finish loop.
type sharedWorker struct {
	o      Options
	sh     Shared
	budget int
	name   string
}

func (w *sharedWorker) run(ctx context.Context, studyID int, study *Study, done func(runs.TrialRecord, int)) error {
	var so StudyOptions
	if study != nil {
		so = study.Options()
	}
	sampler := so.Sampler
	if sampler == "" {
		sampler = DefaultSampler
	}
	subsets := rungSubsets(w.o.Queries, so.Seed, so.Pruning)
	store, id := w.sh.Store, studyID
	tl := newTally(w.o.FailureBudget)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := store.ReapStale(ctx, id, w.sh.Timeout, time.Now()); err != nil {
			return err
		}
		claim, outcome, err := store.Next(ctx, id, w.budget, w.name)
		if err != nil {
			return err
		}
		switch outcome {
		case studystore.Done:
			return nil
		case studystore.Busy:
			// Other workers hold the remaining trials; one may die and
			// free its slot, so wait a little and look again.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(min(w.sh.Beat, busyPoll)):
			}
			continue
		}
		spec, p, mayPrune, err := w.propose(study, claim, sampler)
		if err != nil {
			_ = store.Abandon(context.WithoutCancel(ctx), claim.TrialID, w.name, err.Error())
			return err
		}
		w.o.Progress.TrialStarted(claim.Number+1, w.budget, spec.Name)
		stop := store.KeepAlive(ctx, claim.TrialID, w.name, w.sh.Beat)
		out, restarts, err := runStaged(ctx, w.o, claim.Number, spec, study, p, subsets, mayPrune)
		beatErr := stop()
		var se *studyError
		if errors.As(err, &se) {
			_ = store.Abandon(context.WithoutCancel(ctx), claim.TrialID, w.name, se.err.Error())
			return se.err
		}
		if err != nil && ctx.Err() != nil {
			// Interrupted: give the trial back rather than wait for the
			// timeout.
			_ = store.Abandon(context.WithoutCancel(ctx), claim.TrialID, w.name, "interrupted")
			return ctx.Err()
		}
		if mayPrune { // a sampled trial
			out.Sampler = sampler
		}
		out.Worker = w.name
		if err := w.finish(ctx, claim, out); err != nil {
			if errors.Is(err, studystore.ErrTrialLost) {
				// Too slow to beat (beatErr says why): another worker
				// failed this trial and its slot went to someone else.
				w.o.Progress.TrialDone(claim.Number+1, w.budget, runs.TrialRecord{Name: spec.Name, Status: runs.StatusFailed,
					Error: fmt.Sprintf("lost to the heartbeat rule: %v", errors.Join(err, beatErr))}, 0)
				continue
			}
			return err
		}
		done(out.TrialRecord, restarts)
		eta, budgetErr := tl.done(out.TrialRecord, w.budget-claim.Number-1)
		w.o.Progress.TrialDone(claim.Number+1, w.budget, out.TrialRecord, eta)
		if budgetErr != nil {
			return budgetErr
		}
	}
}

// propose turns a claim into the trial to run: a queued trial's spec, or
// parameters the sampler proposes. Sampled trials may be pruned; the
// experiment file's own trials run to the end.
func (w *sharedWorker) propose(study *Study, c studystore.Claim, sampler string) (experiments.TrialSpec, Proposal, bool, error) {
	if c.Spec != "" {
		var spec experiments.TrialSpec
		if err := json.Unmarshal([]byte(c.Spec), &spec); err != nil {
			return spec, Proposal{}, false, fmt.Errorf("queued trial %d: spec: %w", c.Number, err)
		}
		if study == nil {
			return spec, Proposal{ID: c.TrialID, Number: c.Number, Params: spec.Params}, false, nil
		}
		p, err := study.AskFixedTrial(c.TrialID, spec.Params)
		return spec, p, false, err
	}
	if study == nil {
		return experiments.TrialSpec{}, Proposal{}, false, fmt.Errorf("trial %d: nothing to sample (the experiment file has no space)", c.Number)
	}
	p, err := study.AskTrial(c.TrialID)
	spec := experiments.TrialSpec{Name: fmt.Sprintf("%s-%03d", sampler, c.Number+1), Params: p.Params, Origin: sampler}
	return spec, p, true, err
}

// finish tells the storage the outcome with the record, then records the
// trial in this worker's run (only once the study accepted it).
func (w *sharedWorker) finish(ctx context.Context, c studystore.Claim, out trialOutcome) error {
	state := "FAIL"
	switch out.Status {
	case runs.StatusOK:
		state = "COMPLETE"
	case runs.StatusPruned:
		state = "PRUNED"
	}
	// The per-query results go with the record, so that every worker can
	// compare the study's trials (see importStudy).
	data, err := runs.MarshalJSON(sharedRecord{TrialRecord: out.TrialRecord, QueryResults: out.results})
	if err != nil {
		return fmt.Errorf("trial %q: %w", out.Name, err)
	}
	if err := w.sh.Store.Finish(context.WithoutCancel(ctx), c.TrialID, state, out.Primary, w.name, data); err != nil {
		return err
	}
	if err := w.o.Run.RecordTrial(out.TrialRecord, out.results); err != nil {
		return fmt.Errorf("record trial %q: %w", out.Name, err)
	}
	return nil
}

// SharedLeaderboard builds the combined leaderboard of a shared study from
// the records its workers saved: the same trials give the same bytes,
// whichever worker ran them.
func SharedLeaderboard(ctx context.Context, store *studystore.Store, study string) (runs.Leaderboard, error) {
	id, err := store.StudyID(ctx, study)
	if err != nil {
		return runs.Leaderboard{}, err
	}
	recs, err := store.Records(ctx, id)
	if err != nil {
		return runs.Leaderboard{}, err
	}
	g, err := store.Study(study, goptuna.StudyDirectionMaximize)
	if err != nil {
		return runs.Leaderboard{}, err
	}
	attrs, err := g.GetUserAttrs()
	if err != nil {
		return runs.Leaderboard{}, fmt.Errorf("study %q: %w", study, err)
	}
	var metrics []string
	if err := json.Unmarshal([]byte(attrs[attrMetrics]), &metrics); err != nil && attrs[attrMetrics] != "" {
		return runs.Leaderboard{}, fmt.Errorf("study %q: metrics attribute: %w", study, err)
	}
	trials := make([]runs.TrialRecord, 0, len(recs))
	for _, r := range recs {
		var t runs.TrialRecord
		if err := json.Unmarshal(r.JSON, &t); err != nil {
			return runs.Leaderboard{}, fmt.Errorf("study %q: record of trial %d: %w", study, r.Number, err)
		}
		trials = append(trials, t)
	}
	return runs.NewLeaderboard(attrs[attrPrimary], metrics, trials), nil
}
