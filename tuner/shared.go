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
	"github.com/fusiontune/fusiontune/tuner/sampler"
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
func SearchShared(ctx context.Context, replicas []Options, so sampler.Options, sh Shared) (*Result, error) {
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
		so.StudyName = sampler.DefaultStudyName
	}
	g, err := joinStudy(ctx, sh, so.StudyName)
	if err != nil {
		return nil, err
	}
	fixed, err := queueFileTrials(ctx, sh.Store, g.ID, so.StudyName, replicas[0].Trials)
	if err != nil {
		return nil, err
	}
	return runReplicas(ctx, replicas, so, sh, g.ID, fixed+so.Trials)
}

// joinStudy creates the study (or joins it) once, with retries for
// workers that start together, and records its primary metric and metric
// list (the same for every worker); each replica then loads the study with
// its own sampler.
func joinStudy(ctx context.Context, sh Shared, study string) (*goptuna.Study, error) {
	g, err := sh.Store.Study(study, goptuna.StudyDirectionMaximize)
	if err != nil {
		return nil, err
	}
	metrics, _ := json.Marshal(sh.Metrics)
	for _, kv := range [][2]string{{attrPrimary, sh.Primary}, {attrMetrics, string(metrics)}} {
		if err := sh.Store.EnsureStudyAttr(ctx, g.ID, kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("study %q: %w", study, err)
		}
	}
	return g, nil
}

// queueFileTrials queues the experiment file's own trials in the study
// once (whichever worker comes first) and returns how many there are.
// A queued trial is its spec as JSON without its position: where the
// trial is written (file:line:col) differs from worker to worker, as the
// experiment file's path does, so the queue holds what the trial is and
// workers on other paths or machines agree.
func queueFileTrials(ctx context.Context, db *studystore.Store, studyID int, study string, trials []experiments.TrialSpec) (int, error) {
	fixed := Flatten(Plan(trials))
	specs := make([]string, len(fixed))
	for i, f := range fixed {
		f.Pos = ""
		data, err := json.Marshal(f)
		if err != nil {
			return 0, fmt.Errorf("queue trial %q: %w", f.Name, err)
		}
		specs[i] = string(data)
	}
	if _, err := db.EnqueueOnce(ctx, studyID, specs); err != nil {
		return 0, fmt.Errorf("study %q: %w", study, err)
	}
	return len(fixed), nil
}

// runReplicas runs every replica's trial loop at once (runReplica, named
// worker/R) until the study holds budget trials, and merges what they ran
// into one Result.
func runReplicas(ctx context.Context, replicas []Options, so sampler.Options, sh Shared, studyID, budget int) (*Result, error) {
	res := &Result{}
	var mu sync.Mutex
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part, err := runReplica(ctx, replicas[r], so, sh, studyID, budget, fmt.Sprintf("%s/%d", sh.Worker, r))
			errs[r] = err
			if part != nil {
				mu.Lock()
				res.Trials = append(res.Trials, part.Trials...)
				res.Restarts += part.Restarts
				res.Recording += part.Recording
				res.RecordingOverlapped += part.RecordingOverlapped
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res, errors.Join(errs...)
}

// runReplica is one replica's trial loop on the shared study: its own
// sampler (seeded by its name, loaded from the shared storage) when the
// file has a space, claiming trials until the study holds its budget.
func runReplica(ctx context.Context, o Options, so sampler.Options, sh Shared, studyID, budget int, name string) (*Result, error) {
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	src := &sharedSource{sh: sh, studyID: studyID, budget: budget, name: name,
		sampler: samplerName(so), claims: map[*trial]studystore.Claim{}}
	// Without a space there is nothing to sample: only the queued trials
	// run, with no sampler study beside them.
	var subsets [][]int
	if len(so.Space) > 0 {
		rso := so
		rso.Storage, rso.LoadIfExists = sh.Store.Storage, true
		rso.Seed = ReplicaSeed(so.Seed, name)
		var err error
		if src.study, err = sampler.New(rso); err != nil {
			return nil, err
		}
		subsets = rungSubsets(o.Queries, src.study.Options().Seed, src.study.Options().Pruning)
	}
	return loop(ctx, o, src, newLiveEval(o, src.study, subsets))
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
