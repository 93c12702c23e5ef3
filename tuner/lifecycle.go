package tuner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/metrics/stats"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/report"
	"github.com/fusiontune/fusiontune/tuner/analysis"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/pass"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/scoring"
	"github.com/fusiontune/fusiontune/tuner/studystore"
	"github.com/fusiontune/fusiontune/tuner/verdict"
)

// Config is one tuning run as plain values: what to try, on which
// backend, against which queries, and how to score and decide. cmd/tune
// fills it from flags and settings; Run owns everything after.
type Config struct {
	// Store is the runs directory.
	Store *runs.Store
	// Resume names a run to continue without redoing its finished trials
	// ("" starts a new run).
	Resume string
	// RetryFailed, with Resume, runs the run's failed trials again.
	RetryFailed bool
	// Manifest is the new run's manifest: experiment file and golden set
	// hashes, backend kind, seed, tool and arguments (Trials is set here).
	Manifest runs.Manifest
	// Snapshot writes a new run's inputs into it (settings with secrets
	// redacted, the experiment file, the golden set).
	Snapshot func(*runs.Run) error
	// ResumeHint says how to continue run id after an interruption.
	ResumeHint func(id string) string

	// Trials are the experiment file's own trials; Study, when set, adds
	// the trials a sampler proposes after them.
	Trials []experiments.TrialSpec
	Study  *sampler.Options
	// Shared, when set, runs the study shared through a database with
	// other workers (or --parallel replicas).
	Shared *SharedConfig

	// Queries are the golden set's queries the trials are scored on;
	// Dataset describes them for the log.
	Queries []scoring.Query
	Dataset string
	// Filter names the filter that chose Queries from the golden set
	// ("category=faq, language=hi"; "" for none): the leaderboard warns
	// that its scores are of that subset.
	Filter string
	// HeldOut, when set, returns the held-out queries the best trial is
	// scored on after the sweep (tuned on the dev split, confirmed on the
	// test split).
	HeldOut func() ([]scoring.Query, error)

	Scorer        *scoring.MetricsScorer
	Eval          pass.EvalOptions
	FailureBudget int
	// MaxConsecutiveFailures stops the run once this many trials in a row
	// failed with the same error (0: never; see Options).
	MaxConsecutiveFailures int
	// Backend is the backend kind; Replay, unless nil or ModeLive, fuses
	// query-time variants offline.
	Backend backend.Factory
	Replay  *ReplayOptions

	// Stats configure the significance step; Gates are checked on the
	// best trial.
	Stats analysis.StatsOptions
	Gates []verdict.Gate
	// Latency says which trials' latency is measured again after the
	// sweep (nil: DefaultLatencyOptions); Constraints (score.constraints,
	// gate syntax) exclude the trials that fail one from winning: the
	// winner is the best trial that meets them all (see latency.json).
	Latency     *LatencyOptions
	Constraints []verdict.Gate
	// ConstrainSampler tells a study's sampler the trials that miss a
	// constraint as worse than any that meets them all
	// (ConstrainedObjective), so that it searches where they hold; a
	// latency constraint needs live trials (Replay nil or ModeLive).
	ConstrainSampler bool
	// Judge, when set, judges the leading trials' unjudged hits after the
	// sweep and scores every trial again (the leaderboard's rescored).
	Judge *judging.JudgeLoop

	// Progress receives trial progress (nil: none); Log, the run's
	// messages (nil: discarded).
	Progress Progress
	Log      io.Writer
	// Started is when the command started, for the timings' wall time
	// (zero: when Run is called).
	Started time.Time
	// Phases, when set, notes when each phase of the run ends and is
	// written to Log after the timings (see Phases).
	Phases *pass.Phases

	// pre precomputes the trials' statistics while they run (set by Run).
	pre *analysis.Prestats
}

// SharedConfig is a study shared through a database.
type SharedConfig struct {
	// URL is the study database (sqlite:///PATH, postgres://…, mysql://…);
	// "" keeps the study in the run directory (replicas of one process).
	URL string
	// Study names the study (sampler.DefaultStudyName when "").
	Study string
	// Worker names this worker among the study's.
	Worker string
	// Parallel is how many backend replicas this process runs.
	Parallel int
	// Beat and Timeout are the heartbeat interval and timeout.
	Beat, Timeout time.Duration
}

// Outcome is what a run left: its record, leaderboard and decision inputs.
type Outcome struct {
	Run         *runs.Run
	Leaderboard runs.Leaderboard
	// Trials are every trial recorded in the run (for a shared study:
	// every finished trial of the study this worker knows of).
	Trials   []runs.TrialRecord
	Restarts int
	Skipped  int
	Elapsed  time.Duration
	Timings  runs.Timings
	// Gates are the gates checked on the best trial (none without gates
	// or without a successful trial).
	Gates []verdict.GateResult
	// Constrained is true when score.constraints chose the winner: Winner
	// is then the best trial meeting them (nil: none does).
	Constrained bool
	Winner      *runs.Entry
}

// Best returns the run's winner: the leaderboard's best successful trial,
// or with score.constraints the best one that meets them.
func (o *Outcome) Best() (runs.Entry, bool) {
	if o.Constrained {
		if o.Winner == nil {
			return runs.Entry{}, false
		}
		return *o.Winner, true
	}
	return o.Leaderboard.Best()
}

// heldOutFile holds the held-out split's per-query results in the run.
const heldOutFile = "heldout.queries.jsonl"

// Run runs the whole lifecycle: create (or resume) the run and snapshot its
// inputs, open its backends, execute every trial (a sweep, a sampled study
// or a shared study's share: see runSource), score the held-out split,
// measure latency, finish the run's manifest, build the leaderboard with
// significance, write the report and the timings, and check the gates. It
// returns the outcome whenever a leaderboard was written, with the run's
// error, if any, beside it. Promotion is the caller's, from the outcome's
// best trial.
func Run(ctx context.Context, c Config) (*Outcome, error) {
	if c.Started.IsZero() {
		c.Started = time.Now()
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if err := c.checkConstrainSampler(); err != nil {
		return nil, err
	}
	src, err := c.source()
	if err != nil {
		return nil, err
	}
	c.Phases.Mark("tuner: before the run")
	run, snapshotted, err := src.open(ctx, c)
	defer src.close()
	if err != nil {
		return nil, err
	}
	defer snapshotted() // every path returns with the snapshot written
	c.Phases.Mark("tuner: create the run")
	if run.Manifest.Status == RunAnalysing {
		return c.resumeAnalysis(ctx, run)
	}
	src.announce(c, run)
	dirs, factories := src.backends(c, run)
	bs, err := c.openBackends(dirs, factories)
	if err != nil {
		// A backend that cannot even open (a database refusing the
		// connection) fails as a failed pre-flight does: before any trial,
		// the new run's directory removed.
		var dir string
		if len(dirs) > 0 {
			dir = dirs[0]
		}
		err = fmt.Errorf("%w: open backend: %w", ErrPreflight, err)
		if serr := snapshotted(); serr != nil {
			err = errors.Join(err, serr)
		}
		return nil, c.failPreflight(ctx, run, err, dir)
	}
	c.Phases.Mark("tuner: open the backend")
	// The precomputation ends with Run (on any path).
	preCtx, cancelPre := context.WithCancel(ctx)
	c.pre = analysis.NewPrestats(preCtx, run, c.Stats, analysis.PrestatsWorkers)
	defer c.pre.Wait()
	defer cancelPre()
	if len(c.Queries) > 0 && c.Scorer != nil {
		c.pre.WithFacts(scoring.JudgmentsOf(c.Queries), c.Scorer)
	}
	started := time.Now()
	res, held, runErr, stop, err := c.execute(ctx, run, src, bs, dirs, factories, snapshotted)
	if stop {
		return nil, err
	}
	return c.conclude(ctx, run, src, bs, res, held, runErr, started)
}

// openBackends opens a backend in each of dirs with its factory, timed;
// the one backend of a run that has one marks c.Phases. On an error the
// backends opened are closed.
func (c Config) openBackends(dirs []string, factories []backend.Factory) ([]*pass.TimedBackend, error) {
	var bs []*pass.TimedBackend
	for i, dir := range dirs {
		b, err := factories[i].Open(dir, c.Log)
		if err != nil {
			closeAll(bs)
			return nil, err
		}
		tb := pass.NewTimedBackend(b)
		if len(dirs) == 1 {
			tb.WithPhases(c.Phases)
		}
		bs = append(bs, tb)
	}
	return bs, nil
}

// closeAll closes every backend of bs and returns their errors.
func closeAll(bs []*pass.TimedBackend) error {
	var err error
	for _, b := range bs {
		err = errors.Join(err, b.Close())
	}
	return err
}

// conclude ends a run whose trials ran on bs from started: the latency
// step (on the first backend), then the run's record, statistics,
// leaderboard, report and timings, made while the backends stop (their
// stop is the backend's time, the analysis the tuner's); it returns once
// the backends have stopped.
func (c Config) conclude(ctx context.Context, run *runs.Run, src runSource, bs []*pass.TimedBackend, res *Result, held *runs.HeldOut, runErr error, started time.Time) (*Outcome, error) {
	if runErr == nil {
		runErr = c.measureLatency(ctx, run, bs[0])
	}
	c.Phases.Mark("tuner: after the trials (held-out, latency)")
	stops := make([]func() (time.Time, error), len(bs))
	for i, b := range bs {
		stops[i] = b.Stop()
	}
	stopped := func() (time.Time, error) {
		var at time.Time
		var err error
		for _, s := range stops {
			t, e := s()
			if t.After(at) {
				at = t
			}
			err = errors.Join(err, e)
		}
		return at, err
	}
	defer stopped() // its error is closeErr, below
	hint := src.hint(c, run)
	runErr = finishRun(ctx, run, res, runErr, hint)
	c.Phases.Mark("tuner: record how the trials ended")
	if res == nil {
		return nil, runErr
	}
	// Elapsed (the trials to the stop's end) is known once the analysis,
	// which waits for the stop before summing the timings, is done.
	out, err := c.finish(ctx, run, held, bs, res, 0, hint)
	stoppedAt, closeErr := stopped()
	elapsed := stoppedAt.Sub(started)
	if out != nil {
		out.Elapsed = elapsed
	}
	if err != nil {
		return out, err
	}
	fmt.Fprintln(c.Log, src.summary(out, res, elapsed))
	c.logTimings(out.Timings)
	c.Phases.Write(c.Log)
	return out, c.verdict(out, runErr, closeErr)
}

// announce logs the run's plan: its trials, index groups and queries,
// and the study that follows them.
func (c Config) announce(run *runs.Run) {
	fmt.Fprintf(c.Log, "run %s: %d trials in %d index groups, %d queries (%s)\n",
		run.ID(), len(c.Trials), len(Plan(c.Trials)), len(c.Queries), c.Dataset)
	c.announceScore()
	if c.Study != nil {
		fmt.Fprintf(c.Log, "then %s\n", c.Study.Describe())
		if replaying(c.Replay) && c.Study.Pruning.Enabled {
			fmt.Fprintln(c.Log, "note: replayed trials run every query and are not pruned; pruning applies to trials run live")
		}
	}
}

// announceScore logs the primary score and warns about the measures it
// configures that no ranking can move on this golden set.
func (c Config) announceScore() {
	if c.Scorer == nil {
		return
	}
	fmt.Fprintf(c.Log, "primary: %s\n", c.Scorer.Describe())
	for _, w := range c.Scorer.Unvarying(scoring.HighestGrade(c.Queries)) {
		fmt.Fprintf(c.Log, "warning: %s\n", w)
	}
}

// execute runs the trials on bs, each backend with its directory and
// factory (after the pre-flight on the first, which counts as a restart,
// and once snapshotted says the run's inputs are written) and, when they
// succeed, the held-out scoring on the first. stop reports a failed
// pre-flight or snapshot: bs are closed and the run ended with err.
func (c Config) execute(ctx context.Context, run *runs.Run, src runSource, bs []*pass.TimedBackend, dirs []string, factories []backend.Factory, snapshotted func() error) (res *Result, held *runs.HeldOut, runErr error, stop bool, err error) {
	pre := false
	plan := Flatten(Plan(c.Trials))
	pctx, stopPrefetch := context.WithCancel(ctx)
	// The trials' configs, which their records keep, and their
	// fingerprints are computed while the backend starts.
	descs := make([]*described, len(factories))
	for i, f := range factories {
		descs[i] = newDescribed(f.Describe)
	}
	waits := []func(){descs[0].prefetch(pctx, plan)}
	fps := newFingerprints(c.Backend) // one memo for every replica
	if fps != nil {
		waits = append(waits, fps.prefetch(pctx, plan))
	}
	defer func() {
		stopPrefetch()
		for _, wait := range waits {
			wait()
		}
	}()
	spec, hasPre := preflightSpec(c.Trials)
	if hasPre {
		if pre, err = preflight(ctx, bs[0], spec); err != nil {
			_ = closeAll(bs)
			if serr := snapshotted(); serr != nil {
				err = errors.Join(err, serr)
			}
			return nil, nil, nil, true, c.failPreflight(ctx, run, err, dirs[0])
		}
	}
	if err := snapshotted(); err != nil {
		_ = closeAll(bs)
		return nil, nil, nil, true, c.failSnapshot(run, err)
	}
	if hasPre {
		if err := preflightSearch(ctx, bs[0], spec, c.sampleSearch()); err != nil {
			_ = closeAll(bs)
			return nil, nil, nil, true, c.failPreflight(ctx, run, err, dirs[0])
		}
	}
	c.Phases.Mark("tuner: wait for the run's snapshot (written while the backend started)")
	opts := make([]Options, len(bs))
	for i, b := range bs {
		d := descs[i]
		opts[i] = c.options(run, b, func(p map[string]any) string { return d.get(p) }, fps)
		opts[i].Stats = c.pre
	}
	res, runErr = src.trials(ctx, c, run, opts)
	c.Phases.Mark("tuner: after the last trial's searches (its record made durable)")
	if res != nil && pre {
		res.Restarts++
	}
	if runErr == nil {
		held, runErr = c.heldOut(ctx, run, bs[0])
	}
	return res, held, runErr, false, nil
}

// sampleSearch is the pre-flight's sample search: the first query, as the
// trials ask it (nil without queries).
func (c Config) sampleSearch() *backend.SearchRequest {
	if len(c.Queries) == 0 {
		return nil
	}
	return &backend.SearchRequest{Query: c.Queries[0].Text, K: c.Eval.K, RequestID: "preflight"}
}

// failPreflight ends a run whose pre-flight failed with err: a new run's
// directory is removed (nothing half written stays; the service logs are
// kept in the temporary directory), a resumed run is marked failed. The
// error names the cause and the logs' last lines; it is the user's setup's
// (an input error) unless the run was interrupted.
func (c Config) failPreflight(ctx context.Context, run *runs.Run, err error, backendDir string) error {
	resumed := c.Resume != ""
	err = failedPreflight(err, backendDir, resumed)
	if resumed {
		err = finishRun(ctx, run, nil, err, "")
	} else if rerr := os.RemoveAll(run.Dir); rerr != nil {
		err = errors.Join(err, fmt.Errorf("remove run directory: %w", rerr))
	} else {
		err = fmt.Errorf("%w\nno trial ran; the run directory %s is removed", err, run.Dir)
	}
	if ctx.Err() != nil {
		return err
	}
	return inputerr.Wrap(err)
}

// failSnapshot ends a new run whose inputs could not be snapshotted: no
// trial ran, and its directory is removed (nothing half written stays).
func (c Config) failSnapshot(run *runs.Run, err error) error {
	if rerr := os.RemoveAll(run.Dir); rerr != nil {
		return errors.Join(err, fmt.Errorf("remove run directory: %w", rerr))
	}
	return fmt.Errorf("%w\nno trial ran; the run directory %s is removed", err, run.Dir)
}

// options are the trial loop's options on backend b, its trials'
// fingerprints from fps (nil: the backend has none).
func (c Config) options(run *runs.Run, b backend.Backend, describe func(map[string]any) string, fps *fingerprints) Options {
	progress := c.Progress
	if progress == nil {
		progress = nopProgress{}
	}
	o := Options{
		Trials: c.Trials, Queries: c.Queries, Backend: b, Scorer: c.Scorer,
		Eval: c.Eval, Run: run, Progress: progress, FailureBudget: c.FailureBudget,
		MaxConsecutiveFailures: c.MaxConsecutiveFailures, RetryFailed: c.RetryFailed,
		Describe: func(p experiments.Params) string { return describe(p) },
	}
	if fps != nil {
		o.Fingerprint = fps.get
	}
	return o
}

// openRun creates the run, or reopens the run to resume. A new run's
// inputs are snapshotted in the background, while the backend starts:
// snapshotted waits for it and returns its error (every time asked).
func openRun(c Config) (run *runs.Run, snapshotted func() error, err error) {
	if c.Resume == "" {
		m := c.Manifest
		m.Trials = len(c.Trials)
		if c.Study != nil {
			m.Trials += c.Study.Trials
		}
		run, err := c.Store.Create(m, time.Now())
		if err != nil {
			return nil, nil, err
		}
		if c.Snapshot == nil {
			return run, func() error { return nil }, nil
		}
		done := make(chan error, 1)
		go func() { done <- c.Snapshot(run) }()
		return run, sync.OnceValue(func() error { return <-done }), nil
	}
	run, err = resumeRun(c)
	return run, func() error { return nil }, err
}

// resumeRun reopens the run c resumes.
func resumeRun(c Config) (*runs.Run, error) {
	run, err := c.Store.Resolve(c.Resume)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	if run.Manifest.Experiments != c.Manifest.Experiments {
		return nil, inputerr.Wrap(fmt.Errorf("--resume %s: the run was made from a different experiment file (sha256 %.12s, now %.12s)", run.ID(), run.Manifest.Experiments, c.Manifest.Experiments))
	}
	if run.Manifest.Status != RunAnalysing || c.RetryFailed {
		run.Manifest.Status = "running" // else Run finishes its analysis only
	}
	run.Manifest.Error = ""
	if n, err := run.RemoveTemp(); err != nil {
		return nil, err
	} else if n > 0 {
		fmt.Fprintf(c.Log, "resume: removed %d unfinished temporary files of the interrupted run\n", n)
	}
	if c.RetryFailed {
		if c.Study != nil {
			return nil, inputerr.Wrap(errors.New("--retry-failed: not for a search study (its sampler has learned from the failed trials); resume without it"))
		}
		trials, err := run.Trials()
		if err != nil {
			return nil, err
		}
		n := 0
		for _, t := range trials {
			if t.Status == runs.StatusFailed {
				n++
			}
		}
		fmt.Fprintf(c.Log, "resume: running the %d failed trials again (--retry-failed)\n", n)
	}
	return run, nil
}

// heldOut gives the held-out estimate: the run's best trial evaluated on
// the held-out queries on the still-running backend b (nil without
// held-out queries or a successful trial).
func (c Config) heldOut(ctx context.Context, run *runs.Run, b backend.Backend) (*runs.HeldOut, error) {
	if c.HeldOut == nil {
		return nil, nil
	}
	recs, err := run.Trials()
	if err != nil {
		return nil, err
	}
	lb := runs.NewLeaderboard("", nil, recs)
	best, ok := lb.Best()
	if !ok {
		return nil, nil
	}
	queries, err := c.HeldOut()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c.Log, "held-out estimate: %s on the %d queries of the test split\n", best.Name, len(queries))
	h, results, err := HeldOut(ctx, b, best.Name, best.Params, best.Primary, queries, c.Scorer, c.Eval)
	if err != nil {
		return nil, err
	}
	if err := writeResults(run, heldOutFile, results); err != nil {
		return nil, err
	}
	// Select, then confirm: the reference on the same held-out queries,
	// for the one pre-planned comparison the promotion policy tests.
	base, err := lb.Find(lb.Baseline)
	if lb.Baseline == "" || err != nil || base.Status != runs.StatusOK || base.Name == best.Name {
		return h, nil
	}
	fmt.Fprintf(c.Log, "held-out confirmation: %s vs %s on the test split\n", best.Name, base.Name)
	_, refResults, err := HeldOut(ctx, b, base.Name, base.Params, base.Primary, queries, c.Scorer, c.Eval)
	if err != nil {
		return nil, err
	}
	if err := writeResults(run, heldOutReferenceFile, refResults); err != nil {
		return nil, err
	}
	if err := analysis.ConfirmContext(ctx, h, results, refResults, base.Name, best.Primary-base.Primary, c.Stats); err != nil {
		return nil, err
	}
	fmt.Fprintln(c.Log, h.ConfirmLine())
	return h, nil
}

// heldOutReferenceFile holds the reference trial's held-out results.
const heldOutReferenceFile = "heldout.reference.queries.jsonl"

// writeResults writes query results as JSON lines to the run's file name.
func writeResults(run *runs.Run, name string, results []runs.QueryResult) error {
	var text strings.Builder
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return run.WriteFile(name, []byte(text.String()))
}

// finish builds the leaderboard with significance and the held-out
// estimate, writes it and the report, records the timings and checks the
// gates on the best trial. Interrupted during the statistics (ctx
// cancelled while they run), it marks the run interrupted with hint (how to
// resume, which redoes the analysis) and writes no leaderboard.
func (c Config) finish(ctx context.Context, run *runs.Run, held *runs.HeldOut, bs []*pass.TimedBackend, res *Result, elapsed time.Duration, hint string) (*Outcome, error) {
	analysisStart := time.Now()
	// A sweep interrupted during its trials still analyses what it did,
	// to the end; an interruption from here on (waiting for what the last
	// trials left to compute included) stops the analysis.
	statsCtx := ctx
	if ctx.Err() != nil {
		statsCtx = context.WithoutCancel(ctx)
	}
	c.pre.Wait() // what the last trials left to compute
	c.Phases.Mark("tuner: wait for the precomputed statistics")
	trials, lb, err := c.leaderboard(run)
	if err != nil {
		return nil, err
	}
	c.Phases.Mark("tuner: read the trials, build the leaderboard")
	if interrupted, err := c.statistics(statsCtx, run, &lb, trials); err != nil {
		if interrupted {
			return nil, finishRun(ctx, run, nil, err, hint)
		}
		return nil, err
	}
	c.Phases.Mark("tuner: statistics")
	c.heldOutAndPower(&lb, held)
	if c.Judge != nil {
		if lb.Rescored, _, err = c.Judge.Run(ctx, run, lb, scoring.JudgmentsOf(c.Queries), c.Scorer); err != nil {
			return nil, err
		}
	}
	// The leaderboard's files are written (and the run marked done) while
	// the constraints, the gates and the report are made; the report is
	// written once they are.
	files, err := run.RenderLeaderboard(lb)
	if err != nil {
		return nil, err
	}
	written := writeLeaderboard(run, files)
	c.Phases.Mark("tuner: write the leaderboard")
	out := &Outcome{Run: run, Leaderboard: lb, Trials: trials, Restarts: res.Restarts, Skipped: res.Skipped, Elapsed: elapsed}
	if err := c.constrain(run, out); err != nil {
		return nil, errors.Join(err, written())
	}
	// The gates before the report, which shows them.
	gates, gateErr := c.gates(run, out)
	c.Phases.Mark("tuner: constraints, gates")
	if err := c.reportOnceWritten(run, files, written); err != nil {
		return nil, err
	}
	c.Phases.Mark("tuner: report")
	out.Gates = gates
	if err := c.saveTimings(run, out, bs, res, time.Since(analysisStart)); err != nil {
		return out, err
	}
	c.Phases.Mark("tuner: save the manifest with the timings")
	return out, gateErr
}

// reportOnceWritten renders the run's report from the leaderboard as its
// files say it, waits until they are written (written), then writes the
// report.
func (c Config) reportOnceWritten(run *runs.Run, files *runs.LeaderboardFiles, written func() error) error {
	var page bytes.Buffer
	shown, pageErr := files.AsWritten()
	if pageErr == nil {
		pageErr = report.RenderLeaderboard(&page, run, report.DefaultOptions(), shown)
	}
	if err := written(); err != nil {
		return err
	}
	c.writeReport(run, page.Bytes(), pageErr)
	return nil
}

// saveTimings sets out's timings (the wall time ends once the analysis,
// which took analysis, and the backends' stops have) and saves them in
// the run's manifest.
func (c Config) saveTimings(run *runs.Run, out *Outcome, bs []*pass.TimedBackend, res *Result, analysis time.Duration) error {
	end := time.Now()
	for _, b := range bs {
		end = b.StoppedBy(end)
	}
	out.Timings = sumTimings(bs, end.Sub(c.Started))
	out.Timings.RecordSeconds = res.Recording.Seconds()
	out.Timings.RecordOverlappedSeconds = res.RecordingOverlapped.Seconds()
	out.Timings.AnalysisSeconds = analysis.Seconds()
	run.Manifest.Timings = &out.Timings
	return run.SaveManifest()
}

// leaderboard is the run's recorded trials and their leaderboard, with
// the values the backend gives the parameters a trial leaves unset, the
// golden set's ceiling and trials repeating another's results marked
// (one row).
func (c Config) leaderboard(run *runs.Run) ([]runs.TrialRecord, runs.Leaderboard, error) {
	trials, err := run.Trials()
	if err != nil {
		return nil, runs.Leaderboard{}, err
	}
	lb := runs.NewLeaderboard(c.Scorer.Describe(), c.Scorer.Metrics(), trials)
	if c.Backend != nil {
		lb.SetDefaults(func(params map[string]any, name string) (any, bool) {
			return backend.EffectiveParam(c.Backend, params, name)
		})
	}
	if len(c.Queries) > 0 {
		lb.SetCeiling(scoring.Ceiling(c.Queries, c.Scorer))
	}
	same, err := analysis.ResultKeys(run, trials, c.pre)
	if err != nil {
		return nil, runs.Leaderboard{}, err
	}
	lb.MarkSameResults(same)
	if c.Filter != "" {
		lb.Warnings = append(lb.Warnings, runs.FilterNote(c.Filter))
	}
	return trials, lb, nil
}

// statistics adds significance and the judged-only columns to lb.
// interrupted reports an error caused by statsCtx ending during them; an
// interrupted sweep still gets the leaderboard of the trials it finished
// (finish passes a statsCtx without the cancellation then; the sizes are
// bounded, see the stats settings).
func (c Config) statistics(statsCtx context.Context, run *runs.Run, lb *runs.Leaderboard, trials []runs.TrialRecord) (interrupted bool, err error) {
	records := make(map[int]runs.TrialRecord, len(trials))
	for _, t := range trials {
		records[t.Index] = t
	}
	if err := analysis.SignificanceFrom(statsCtx, run, lb, c.Stats, c.pre, records); err != nil {
		return statsCtx.Err() != nil, err
	}
	if len(c.Queries) > 0 {
		if err := analysis.SetJudgedOnlyFrom(statsCtx, run, lb, scoring.JudgmentsOf(c.Queries), c.Scorer, c.pre, records); err != nil {
			return statsCtx.Err() != nil, err
		}
	}
	return false, nil
}

// heldOutAndPower records the held-out scores on lb (their power is the
// decision's: select, then confirm) and the run's verdict, and logs the
// power line when the verdict keeps the baseline (it says why a gain went
// undetected), and the split hint.
func (c Config) heldOutAndPower(lb *runs.Leaderboard, held *runs.HeldOut) {
	lb.HeldOut = held
	if held != nil && held.Power != nil {
		lb.Power = held.Power
	}
	v := verdict.Decide(*lb)
	lb.Verdict = &v
	if lb.Power != nil && v.Kind == runs.VerdictKeep {
		fmt.Fprintln(c.Log, lb.Power.Line())
	}
	if hint := splitHint(*lb, c.Stats); hint != "" {
		fmt.Fprintln(c.Log, hint)
	}
}

// writeLeaderboard writes the leaderboard's files in the background and
// returns the function that waits for them and returns their error; once
// they are written, an analysing run is done (its status is set at once,
// for the report that is made meanwhile, and saved after them; `tune
// report` can redo a report cut short).
func writeLeaderboard(run *runs.Run, files *runs.LeaderboardFiles) (written func() error) {
	analysing := run.Manifest.Status == RunAnalysing
	if analysing {
		run.Manifest.Status = "done"
	}
	done := make(chan error, 1)
	go func() {
		err := files.Write()
		if err == nil && analysing {
			err = run.SaveManifest()
		}
		done <- err
	}()
	return sync.OnceValue(func() error {
		err := <-done
		if err != nil && analysing {
			run.Manifest.Status = RunAnalysing // not done after all
		}
		return err
	})
}

// gates checks and records the settings' gates on the outcome's best
// trial, the constrained winner under score.constraints (none without
// gates or a best trial).
func (c Config) gates(run *runs.Run, out *Outcome) ([]verdict.GateResult, error) {
	best, ok := out.Best()
	if !ok || len(c.Gates) == 0 {
		return nil, nil
	}
	gates, err := verdict.CheckGates(run, best, c.Gates)
	if err == nil {
		err = verdict.RecordGates(run, best, gates)
	}
	return gates, err
}

// writeReport writes the run's report, rendered (page) unless renderErr;
// a failure is a warning: the results are on disk already and `tune
// report` can retry.
func (c Config) writeReport(run *runs.Run, page []byte, renderErr error) {
	err := renderErr
	if err == nil {
		if werr := run.WriteFile(report.FileName, page); werr != nil {
			err = fmt.Errorf("report: %w", werr)
		}
	}
	if err != nil {
		fmt.Fprintf(c.Log, "warning: report: %v (retry with 'tune report %s')\n", err, run.ID())
	} else {
		fmt.Fprintf(c.Log, "report %s\n", filepath.Join(run.Dir, report.FileName))
	}
}

// sumTimings adds up the timings of the replicas' backends over wall.
func sumTimings(bs []*pass.TimedBackend, wall time.Duration) runs.Timings {
	if len(bs) == 1 {
		return bs[0].Timings(wall)
	}
	// Replicas run side by side: their backend time overlaps, so the
	// overhead is what the busiest replica leaves of the wall time, at
	// least 0.
	t := runs.Timings{WallSeconds: wall.Seconds()}
	busy := 0.0
	for _, b := range bs {
		bt := b.Timings(wall)
		t.StartStopSeconds += bt.StartStopSeconds
		t.SearchSeconds += bt.SearchSeconds
		t.ApplySeconds += bt.ApplySeconds
		busy = max(busy, bt.StartStopSeconds+bt.SearchSeconds)
	}
	t.OverheadSeconds = max(0, t.WallSeconds-busy)
	if t.WallSeconds > 0 {
		t.OverheadShare = t.OverheadSeconds / t.WallSeconds
	}
	return t
}

func (c Config) logTimings(t runs.Timings) {
	fmt.Fprintf(c.Log, "time: %.2fs wall = %.2fs backend start/stop + %.2fs search requests + %.3fs tuner overhead (%.2f%%; of it %.3fs waiting for durable trial records (%.3fs more written while the next trial ran), %.3fs applying configs, %.3fs statistics, leaderboard and report after the last trial)\n",
		t.WallSeconds, t.StartStopSeconds, t.SearchSeconds, t.OverheadSeconds, 100*t.OverheadShare, t.RecordSeconds, t.RecordOverlappedSeconds, t.ApplySeconds, t.AnalysisSeconds)
}

// verdict is the run's error once its leaderboard is written: the trial
// loop's, the backend's on close, or that no trial succeeded.
func (c Config) verdict(out *Outcome, runErr, closeErr error) error {
	if runErr != nil {
		return runErr
	}
	if closeErr != nil {
		return fmt.Errorf("stop backend: %w", closeErr)
	}
	if _, ok := out.Best(); !ok && out.Constrained {
		return fmt.Errorf("no trial meets score.constraints (see %s)", runs.LatencyFile)
	} else if !ok {
		return errors.New("no trial succeeded")
	}
	return nil
}

// RunAnalysing is the status of a run whose trials are all recorded while
// its statistics, leaderboard and report are being made: a run is "done"
// only once its leaderboard is written. A run left analysing (tune killed
// during the statistics) is finished by --resume, which runs no trial
// again: it makes the statistics, leaderboard and report from the
// recorded trials.
const RunAnalysing = "analysing"

// finishRun records in the run's manifest how its trials ended (analysing
// when a leaderboard follows, i.e. res is not nil; done without one;
// interrupted when ctx was cancelled; failed) and the backend restarts,
// and returns the error to report: "interrupted: " + hint for an
// interruption, runErr otherwise, or the manifest's write error when the
// run itself succeeded. finish marks an analysing run done once its
// leaderboard is written.
func finishRun(ctx context.Context, run *runs.Run, res *Result, runErr error, hint string) error {
	status := "done"
	if res != nil {
		status = RunAnalysing
	}
	switch {
	case runErr != nil && ctx.Err() != nil:
		status = "interrupted"
		runErr = errors.New("interrupted: " + hint)
	case runErr != nil:
		status = "failed"
	}
	if res != nil {
		run.Manifest.Restarts += res.Restarts
	}
	if err := run.Finish(status, runErr, time.Now()); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

// openStudyStore opens the study database: a bad URL is an input error.
func openStudyStore(ctx context.Context, url string) (*studystore.Store, error) {
	db, err := studystore.Open(ctx, url)
	if errors.Is(err, studystore.ErrBadURL) {
		return nil, inputerr.Wrap(fmt.Errorf("--storage: %w", err))
	}
	return db, err
}

// splitHint suggests select-then-confirm when the run was not split, its
// best trial is not significant after the correction, and the family is
// large enough that one uncorrected test on a held-out half has more
// power (stats.SplitBreakEven).
func splitHint(lb runs.Leaderboard, o analysis.StatsOptions) string {
	o = o.WithDefaults()
	best, ok := lb.Best()
	if lb.HeldOut != nil || !ok || best.Comparison == nil || best.Comparison.Significant || o.Correction == stats.None {
		return ""
	}
	m := best.Comparison.Family
	if be := stats.SplitBreakEven(o.Thresholds.Alpha, 1-experiments.DefaultDevFraction); m >= be {
		return fmt.Sprintf("hint: the best trial is tested against %d trials' correction; with %d or more, selecting on a dev split and confirming one comparison on held-out queries (--split dev) has more power", m, be)
	}
	return ""
}
