package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/runs"
)

// command is one subcommand of tune. run parses its own arguments: most
// commands declare a cli.Spec (usage and flags, each flag bound to the
// settings key it overrides) and start with a.parse(spec, args).
type command struct {
	name    string // as typed on the command line
	summary string // one line for the top-level help
	run     func(ctx context.Context, a *app, args []string) error
	// readOnly marks a command that only reads, or writes its files
	// atomically: on SIGINT or SIGTERM it is abandoned and tune exits at
	// once (untilInterrupted), instead of running to its end.
	readOnly bool
}

// app is what one invocation's commands share: the standard streams, which
// redact, and the redactor scrubbing secrets from everything tune writes
// (created in run; the settings add the secrets they name).
type app struct {
	stdout, stderr io.Writer
	secrets        *runs.Redactor
}

// commands is every subcommand of tune, in the order of the top-level help.
// To add one: a line here, and in a file of its own a cli.Spec and its
// run function (see apply.go).
func commands() []command {
	return []command{
		{name: "adapt", summary: "learn a query-adaptive fusion policy from a replayed run, judged by cross-validation", run: runAdapt},
		{name: "apply", summary: "promote a recorded trial to the production config (safely, with rollback)", run: runApply},
		{name: "check", summary: "validate settings files, golden sets and experiment files, listing every problem with file:line:col", run: runCheck, readOnly: true},
		{name: "check-quality", summary: "evaluate the configured backend as it runs (no apply, no restart): scorecard, gates, --against a reference", run: runCheckQuality},
		{name: "compare", summary: "paired comparison of two recorded trials (tests, categories, result diffs)", run: runCompare, readOnly: true},
		{name: "embed", summary: "serve the built-in embedders as an OpenAI-compatible /v1/embeddings, or write document and query vectors", run: runEmbed},
		{name: "eval", summary: "score a TREC run file against qrels, as trec_eval does", run: runEval, readOnly: true},
		{name: "export", summary: "write a golden set as TREC topics + qrels or a BEIR folder (judgments resolved to document ids)", run: runExport, readOnly: true},
		{name: "gate", summary: "check the settings' quality gates on a recorded trial (exit 1 when one fails)", run: runGate, readOnly: true},
		{name: "init", summary: "write a starter tune.yaml, experiment file and golden-set skeleton (never overwrites)", run: runInit},
		{name: "harvest", summary: "build a golden-set skeleton (and implicit judgments) from query logs", run: runHarvest},
		{name: "judge", summary: "label unjudged pairs (llm, people, a qrels file) into the label store; agreement", run: runJudge},
		{name: "leaderboard", summary: "reprint a recorded run's leaderboard", run: runLeaderboard, readOnly: true},
		{name: "plan", summary: "how many judged queries detect a gain of --effect with 80% power (from a run's variance or a prior)", run: runPlan, readOnly: true},
		{name: "report", summary: "write a run's self-contained HTML report (report.html)", run: runReport, readOnly: true},
		{name: "rollback", summary: "restore the production config the last promotion replaced", run: runRollback},
		{name: "runs", summary: "list recorded runs with their best scores", run: runRuns, readOnly: true},
		{name: "search", summary: "run a batch of queries on the embedded engine and write a TREC run", run: runSearch},
		{name: "shadow", summary: "diff two configs' answers to logged queries, with a sequential test on judged ones", run: runShadow},
		{name: "serve", summary: "run the embedded hybrid search engine over HTTP", run: runServe},
		{name: "sweep", summary: "run a sweep (the default: tune --experiments FILE)", run: runSweep},
		{name: "ui", summary: "serve the evaluation web app (runs, leaderboards, compare, query microscope, judging) on loopback", run: runUI},
		{name: "version", summary: "print the version of tune", run: runVersion, readOnly: true},
		{name: "worker", summary: "join a study shared through a database (--storage URL --study NAME)", run: runWorker},
	}
}

const usageHead = `tune — tune hybrid search (BM25 + vectors + fusion) against a judged golden set

Usage:
  tune [--experiments FILE] [flags]     run a sweep and print the leaderboard
  tune COMMAND [flags]

Commands:
`

const usageFoot = `
Run 'tune COMMAND --help' for a command's flags; flags may come before or after COMMAND.
RUN: latest, a run id or prefix, or a run directory's path. TRIAL: #N (leaderboard rank), a name or prefix; none: the best.
Exit codes: 0 ok, 1 run or gate failed, 2 usage or input error, 3 sweep finished with failed trials.
`

// table is tune's commands bound to a; with no command the sweep runs
// (`tune --experiments FILE`).
func (a *app) table() cli.Table {
	t := cli.Table{Default: "sweep", Help: usageHead, Footer: usageFoot + "\nExamples:\n  " + strings.ReplaceAll(examples("tune"), "\n", "\n  ") + "\n",
		BoolFlags: map[string]bool{"apply-best": true, "force": true, "h": true, "help": true, "c": true, "q": true, "v": true}}
	for _, c := range commands() {
		run := func(ctx context.Context, args []string) error { return c.run(ctx, a, args) }
		if c.readOnly {
			run = func(ctx context.Context, args []string) error {
				return untilInterrupted(ctx, func() error { return c.run(ctx, a, args) })
			}
		}
		t.Commands = append(t.Commands, cli.Command{Name: c.name, Summary: c.summary, Run: run})
	}
	return t
}

// run executes one invocation and returns its exit code. Errors go to stderr,
// results to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	secrets := runs.NewRedactor()
	secrets.AddEnv(os.Environ())
	a := &app{stdout: secrets.Writer(stdout), stderr: secrets.Writer(stderr), secrets: secrets}
	err := a.table().Dispatch(ctx, args, a.stdout)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(a.stderr, "tune: %v\n", err)
	}
	return cli.Code(err)
}

// parse parses a command's arguments with its spec (cli.Spec.Parse), its
// help ending with the command's examples (help/examples).
func (a *app) parse(spec cli.Spec, args []string) (*cli.Parsed, error) {
	spec.Examples = examples(spec.Name)
	return spec.Parse(a.stderr, args)
}
