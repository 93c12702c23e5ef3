package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

func init() {
	register(command{name: "sweep", summary: "run a sweep (the default: tune --experiments FILE)", run: runSweep})
	defaultCommand = "sweep"
}

const sweepUsage = `[--experiments FILE] [--config tune.yaml] [--runs-dir DIR] [--resume RUN] [--apply-best] [--mode live|replay|auto] [--verify N] [--format text|json|md|csv]
       [--storage URL [--study NAME]] [--parallel N]

Applies every trial of the experiment file to the backend, restarting it,
evaluates the golden set, records the run under the runs directory and
prints the leaderboard. With no settings file, the embedded engine runs on
the shipped demo dataset.`

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return sweep(ctx, "sweep", args, stdout, stderr)
}

// sweep is `tune sweep` and, with cmd "worker", `tune worker`: the same
// flags, the worker requiring a shared study.
func sweep(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	sweepStart := time.Now()
	usage := sweepUsage
	if cmd == "worker" {
		usage = workerUsage
	}
	fs := newFlagSet(cmd, usage, stderr)
	expFile := fs.String("experiments", "", "experiment file (JSON or YAML); default: the shipped shortlist")
	config := fs.String("config", "", "settings file (default ./tune.yaml when present)")
	fs.String("runs-dir", defaultRunsDir, "directory of run records (setting runs_dir)")
	fs.String("split", "all", "golden-set split to evaluate: all, dev or test (setting dataset.split)")
	fs.String("dataset-id", "", "named dataset from the settings' datasets list (setting dataset_id)")
	resume := fs.String("resume", "", "continue the interrupted run RUN without redoing its finished trials")
	format := fs.String("format", "text", "leaderboard format on stdout: text, json, md or csv")
	applyBest := fs.Bool("apply-best", false, "promote the best trial to the production config (backend.config) after the sweep")
	force := fs.Bool("force", false, "with --apply-best: promote even when the promotion policy refuses (recorded in promotions.jsonl)")
	sf := addSharedFlags(fs)
	mode := fs.String("mode", "live", "live (apply and evaluate every trial), replay (fuse query-time variants offline from candidate lists, verify the best live) or auto (replay where the backend returns candidate lists)")
	verify := fs.Int("verify", tuner.DefaultVerify, verifyUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	shared, err := sf.check(cmd, *resume, *applyBest)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q (experiment files go after --experiments)", fs.Arg(0))
	}
	if !validFormat(*format) {
		return usageErrorf("--format: want text, json, md or csv (got %q)", *format)
	}
	s, err := loadSettings(*config, fs, map[string]string{"runs-dir": "runs_dir", "split": "dataset.split", "dataset-id": "dataset_id"})
	if err != nil {
		return err
	}

	if *applyBest && s.Backend.Config == "" {
		return inputError(errors.New("--apply-best: backend.config must name the production engine config to promote into"))
	}
	// Everything the user wrote is read and checked before any run
	// directory exists or any backend starts.
	ef, err := loadExperiments(*expFile)
	if err != nil {
		return inputError(err)
	}
	trials, warnings, err := ef.Expand()
	if err != nil {
		return inputError(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	scorer, err := newScorer(s.Score)
	if err != nil {
		return inputError(err)
	}
	ds, err := openDataset(s)
	if err != nil {
		return err
	}
	for _, w := range ds.warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	eng, err := newBackendSetup(s, ds)
	if err != nil {
		return inputError(err)
	}
	if err := eng.check(trials); err != nil {
		return inputError(err)
	}
	study, err := studyFor(ef, eng)
	if err != nil {
		return inputError(err)
	}
	replay, err := replayOptions(eng, *mode, *verify, stderr)
	if err != nil {
		return err
	}
	if replay != nil && shared {
		// Shared studies (tuner.SearchShared) evaluate every trial live.
		if replay.Mode == tuner.ModeReplay {
			return usageErrorf("--mode replay: studies shared through --storage or --parallel run every trial live (replay is for single-process sweeps and studies); use --mode live or auto")
		}
		fmt.Fprintln(stderr, "note: --mode auto: studies shared through --storage or --parallel run every trial live")
	}
	if shared {
		return runShared(ctx, sf, sharedRun{args: args, s: s, ef: ef, trials: trials, ds: ds, scorer: scorer, eng: eng, study: study}, *format, stdout, stderr)
	}

	store, err := openStore(s.RunsDir)
	if err != nil {
		return err
	}
	lockConfig := ""
	if *applyBest {
		lockConfig = s.Backend.Config
	}
	unlock, err := lockRun(store, lockConfig, args, stderr)
	defer unlock()
	if err != nil {
		return err
	}
	var run *runs.Run
	if *resume != "" {
		run, err = store.Resolve(*resume)
		if err != nil {
			return inputError(err)
		}
		if run.Manifest.Experiments != ef.Hash {
			return inputError(fmt.Errorf("--resume %s: the run was made from a different experiment file (sha256 %.12s, now %.12s)", run.ID(), run.Manifest.Experiments, ef.Hash))
		}
		run.Manifest.Status = "running"
		run.Manifest.Error = ""
		if n, err := run.RemoveTemp(); err != nil {
			return err
		} else if n > 0 {
			fmt.Fprintf(stderr, "resume: removed %d unfinished temporary files of the interrupted run\n", n)
		}
	} else {
		run, err = store.Create(runs.Manifest{
			Experiments: ef.Hash, GoldenHash: ds.hash, Backend: s.Backend.Kind,
			Trials: len(trials) + ef.Trials, Seed: ef.Seed, Tool: "tune", Args: args,
		}, time.Now())
		if err != nil {
			return err
		}
		if err := snapshot(run, s, ef, ds); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "run %s: %d trials in %d index groups, %d queries (%s)\n",
		run.ID(), len(trials), len(tuner.Plan(trials)), len(ds.queries), ds.describe)
	if study != nil {
		fmt.Fprintf(stderr, "then %s\n", study.Describe())
		if replay != nil && replay.Mode != tuner.ModeLive && study.Pruning.Enabled {
			fmt.Fprintln(stderr, "note: replayed trials run every query and are not pruned; pruning applies to trials run live")
		}
	}

	ob, err := eng.open(run.Dir, stderr)
	if err != nil {
		return err
	}
	b := tuner.NewTimedBackend(ob)
	started := time.Now()
	opts := tuner.Options{
		Trials: trials, Queries: ds.queries, Backend: b, Scorer: scorer,
		Eval:          evalOptions(s.Eval),
		Run:           run,
		Progress:      &tuner.TextProgress{W: stderr, Terminal: isTerminal(stderr)},
		FailureBudget: s.Eval.FailureBudget,
		Describe:      eng.describe,
		Replay:        replay,
	}
	var res *tuner.Result
	var sweepErr error
	if study != nil {
		res, sweepErr = tuner.Search(ctx, opts, *study)
	} else {
		res, sweepErr = tuner.Sweep(ctx, opts)
	}
	var held *runs.HeldOut
	if sweepErr == nil {
		held, sweepErr = heldOutStep(ctx, s, run, b, scorer, stderr)
	}
	closeErr := b.Close()
	elapsed := time.Since(started)

	sweepErr = finishRun(ctx, run, res, sweepErr, fmt.Sprintf("resume with '%s'", resumeCommand(args, run.ID())))
	if res == nil {
		return failedError(sweepErr)
	}
	analysisStart := time.Now()
	trialsDone, err := run.Trials()
	if err != nil {
		return err
	}
	lb := runs.NewLeaderboard(scorer.Describe(), scorer.Metrics(), trialsDone)
	derived := res.Derived
	if derived == nil {
		derived = tuner.NewResults(run)
	}
	so := s.statsOptions(ef.Seed)
	so.Results = derived
	if err := tuner.Significance(run, &lb, so); err != nil {
		return err
	}
	lb.HeldOut = held
	if err := run.WriteLeaderboard(lb); err != nil {
		return err
	}
	writeRunReport(run, derived, stderr)
	analysis := time.Since(analysisStart)
	fmt.Fprintf(stderr, "%d trials (%d resumed), %d backend restarts, %s; run directory %s\n",
		len(trialsDone), res.Skipped, res.Restarts, elapsed.Round(time.Millisecond), run.Dir)
	if err := recordTimings(run, b, res.Recording, analysis, time.Since(sweepStart), stderr); err != nil {
		return err
	}
	if err := lb.Render(stdout, *format); err != nil {
		return err
	}
	if sweepErr != nil {
		return failedError(sweepErr)
	}
	if closeErr != nil {
		return failedError(fmt.Errorf("stop backend: %w", closeErr))
	}
	best, ok := lb.Best()
	if !ok {
		return failedError(errors.New("no trial succeeded"))
	}
	if err := gateStep(s, run, best, stderr); err != nil {
		return err
	}
	if *applyBest {
		if err := promote(ctx, s, store, run, best, *force, stdout, stderr); err != nil {
			return err
		}
	}
	return partialOutcome(trialsDone)
}

// partialOutcome is the exit-3 error of a sweep that finished with failed
// trials, nil when every trial succeeded.
func partialOutcome(trials []runs.TrialRecord) error {
	failed := 0
	first := ""
	for _, t := range trials {
		if t.Status == runs.StatusFailed { // pruned trials are not failures
			if failed == 0 {
				first = fmt.Sprintf("%s: %s", t.Name, t.Error)
			}
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	return partialError(fmt.Errorf("%d of %d trials failed and are recorded with their reasons (first: %s)", failed, len(trials), first))
}

func validFormat(f string) bool {
	for _, ok := range runs.Formats {
		if f == ok {
			return true
		}
	}
	return f == "markdown"
}

func evalOptions(e evalSettings) tuner.EvalOptions {
	return tuner.EvalOptions{Concurrency: e.Concurrency, Timeout: e.Timeout, Retries: e.Retries, K: e.K}
}

// loadExperiments reads the experiment file, or the shipped shortlist.
func loadExperiments(path string) (*experiments.ExperimentFile, error) {
	if path == "" {
		return experiments.ParseExperimentFile(shippedShortlist, experiments.Shortlist)
	}
	return experiments.LoadExperimentFile(path)
}

// snapshot writes what makes the run self-contained: settings (secrets
// redacted), the experiment file, the golden set's hash and a copy.
func snapshot(run *runs.Run, s *settings, ef *experiments.ExperimentFile, ds *dataset) error {
	var m map[string]any
	data, err := runs.MarshalJSON(s)
	if err != nil {
		return err
	}
	if err := jsonUnmarshal(data, &m); err != nil {
		return err
	}
	if err := run.WriteJSON(runs.SettingsFile, redacted(m)); err != nil {
		return err
	}
	if err := run.WriteFile(experimentsSnapshotName(ef.Path), ef.Raw); err != nil {
		return err
	}
	return ds.snapshot(run)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// shippedShortlist names the shipped shortlist in messages when no
// --experiments is given.
const shippedShortlist = "shortlist.json (shipped)"

// experimentsSnapshotName is the run directory's copy of the experiment
// file: experiments.yaml for YAML, experiments.json otherwise.
func experimentsSnapshotName(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return "experiments.yaml"
	}
	return "experiments.json"
}

// resumeCommand is the command line that resumes run id: the user's own
// arguments (settings, runs directory, experiment file), without any
// earlier --resume, plus --resume id. Arguments with shell metacharacters
// are single-quoted so the line can be pasted.
func resumeCommand(args []string, id string) string {
	out := []string{"tune"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--resume" || a == "-resume":
			i++ // its value
			continue
		case strings.HasPrefix(a, "--resume=") || strings.HasPrefix(a, "-resume="):
			continue
		}
		out = append(out, shellQuote(a))
	}
	return strings.Join(append(out, "--resume", shellQuote(id)), " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// finishRun records in the run's manifest how it ended (done, interrupted
// when ctx was cancelled, failed) and the backend restarts, and returns the
// error to report: "interrupted: " + hint for an interruption, runErr
// otherwise, or the manifest's write error when the run itself succeeded.
func finishRun(ctx context.Context, run *runs.Run, res *tuner.Result, runErr error, hint string) error {
	status := "done"
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
