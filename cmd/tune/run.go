package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/runs"
)

// command is one subcommand of tune.
type command struct {
	name    string // as typed on the command line
	summary string // one line for the top-level help
	run     func(ctx context.Context, a *app, args []string) error
}

// app is what one invocation's commands share: the standard streams, which
// redact, and the redactor scrubbing secrets from everything tune writes
// (created in run; the settings add the secrets they name).
type app struct {
	stdout, stderr io.Writer
	secrets        *runs.Redactor
}

// defaultCommand runs when the first argument is a flag or absent: tune's main
// job, the sweep (`tune --experiments FILE`).
const defaultCommand = "sweep"

// commands is every subcommand of tune, in the order of the top-level help.
func commands() []command {
	return []command{
		{name: "apply", summary: "promote a recorded trial to the production config (safely, with rollback)", run: runApply},
		{name: "check", summary: "validate settings files, golden sets and experiment files, listing every problem with file:line:col", run: runCheck},
		{name: "check-quality", summary: "evaluate the configured backend as it runs (no apply, no restart): scorecard, gates, --against a reference", run: runCheckQuality},
		{name: "compare", summary: "paired comparison of two recorded trials (tests, categories, result diffs)", run: runCompare},
		{name: "eval", summary: "score a TREC run file against qrels, as trec_eval does", run: runEval},
		{name: "export", summary: "write a golden set as TREC topics + qrels or a BEIR folder (judgments resolved to document ids)", run: runExport},
		{name: "gate", summary: "check the settings' quality gates on a recorded trial (exit 1 when one fails)", run: runGate},
		{name: "init", summary: "write a starter tune.yaml, experiment file and golden-set skeleton (never overwrites)", run: runInit},
		{name: "judge", summary: "label unjudged pairs (llm, people, a qrels file) into the label store; agreement", run: runJudge},
		{name: "leaderboard", summary: "reprint a recorded run's leaderboard", run: runLeaderboard},
		{name: "plan", summary: "how many judged queries detect a gain of --effect with 80% power (from a run's variance or a prior)", run: runPlan},
		{name: "report", summary: "write a run's self-contained HTML report (report.html)", run: runReport},
		{name: "rollback", summary: "restore the production config the last promotion replaced", run: runRollback},
		{name: "runs", summary: "list recorded runs with their best scores", run: runRuns},
		{name: "search", summary: "run a batch of queries on the embedded engine and write a TREC run", run: runSearch},
		{name: "serve", summary: "run the embedded hybrid search engine over HTTP", run: runServe},
		{name: "sweep", summary: "run a sweep (the default: tune --experiments FILE)", run: runSweep},
		{name: "version", summary: "print the version of tune", run: runVersion},
		{name: "worker", summary: "join a study shared through a database (--storage URL --study NAME)", run: runWorker},
	}
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run executes one invocation and returns its exit code. Errors go to stderr,
// results to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	secrets := runs.NewRedactor()
	addEnvSecrets(secrets, os.Environ())
	a := &app{stdout: secrets.Writer(stdout), stderr: secrets.Writer(stderr), secrets: secrets}
	err := dispatch(ctx, a, args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(a.stderr, "tune: %v\n", err)
	}
	return exitCode(err)
}

// dispatch finds the command among args, wherever it stands: global flags
// may come before it (`tune --config t.yaml gate latest`). With no command,
// the sweep runs.
func dispatch(ctx context.Context, a *app, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			if len(args) > 1 {
				if c, ok := lookup(args[1]); ok {
					return c.run(ctx, a, []string{"--help"})
				}
				return unknownCommand(args[1])
			}
			printUsage(a.stdout)
			return nil
		}
	}
	if i := commandIndex(args); i >= 0 {
		c, _ := lookup(args[i])
		rest := append(append([]string{}, args[:i]...), args[i+1:]...)
		return c.run(ctx, a, rest)
	}
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if (i == 0 && !strings.HasPrefix(arg, "-")) || (!strings.HasPrefix(arg, "-") && !takesValue(args[i-1]) && suggest.Closest(arg, commandNames()) != "") {
			return unknownCommand(arg)
		}
	}
	c, _ := lookup(defaultCommand)
	return c.run(ctx, a, args)
}

// commandIndex is the position of the command in args, -1 for none: the
// first argument naming a command that is not a preceding flag's value.
func commandIndex(args []string) int {
	for i, arg := range args {
		if arg == "--" {
			return -1
		}
		if strings.HasPrefix(arg, "-") {
			continue
		}
		if _, ok := lookup(arg); ok && (i == 0 || !takesValue(args[i-1])) {
			return i
		}
		if i == 0 {
			return -1 // the first argument is a positional one, not a command
		}
	}
	return -1
}

// boolFlags are the flags of any command that take no value.
var boolFlags = map[string]bool{"apply-best": true, "force": true, "h": true, "help": true, "c": true, "q": true, "v": true}

// takesValue reports whether arg is a flag whose value is the next
// argument.
func takesValue(arg string) bool {
	if !strings.HasPrefix(arg, "-") || arg == "--" || strings.Contains(arg, "=") {
		return false
	}
	return !boolFlags[strings.TrimLeft(arg, "-")]
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// unknownCommand is the one-line error for a mistyped command.
func unknownCommand(name string) error {
	if s := suggest.Closest(name, commandNames()); s != "" {
		return usageErrorf("unknown command %q (did you mean %s?); run 'tune help' for the commands", name, s)
	}
	return usageErrorf("unknown command %q; run 'tune help' for the commands", name)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "tune — tune hybrid search (BM25 + vectors + fusion) against a judged golden set")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  tune [--experiments FILE] [flags]     run a sweep and print the leaderboard")
	fmt.Fprintln(w, "  tune COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'tune COMMAND --help' for a command's flags; flags may come before or after COMMAND.")
	fmt.Fprintln(w, "RUN: latest, a run id or prefix, or a run directory's path. TRIAL: #N (leaderboard rank), a name or prefix; none: the best.")
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 run or gate failed, 2 usage or input error, 3 sweep finished with failed trials.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tune "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: tune %s %s\n\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs, mapping a parse failure to a one-line
// usage error (exit 2) naming the flag, with a did-you-mean for a
// mistyped one, and --help to the command's usage and flag.ErrHelp
// (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package would print the error and the usage
	fs.Usage = func() {}
	err := checkNumberFlags(fs, args)
	if err == nil {
		err = fs.Parse(flagsFirst(fs, args))
	}
	fs.SetOutput(out)
	fs.Usage = usage
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return err
	}
	return &codedError{code: exitUsage, err: flagError(fs, err)}
}

// flagError rewords a flag package error as one line: the command, the
// flag, a did-you-mean for an unknown one, and where the flags are listed.
func flagError(fs *flag.FlagSet, err error) error {
	cmd := strings.TrimPrefix(fs.Name(), "tune ")
	help := fmt.Sprintf("run 'tune %s --help' for its flags", cmd)
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !unknown {
		return fmt.Errorf("%s: %w; %s", cmd, err, help)
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Errorf("%s: unknown flag --%s (did you mean --%s?); %s", cmd, name, s, help)
	}
	return fmt.Errorf("%s: unknown flag --%s; %s", cmd, name, help)
}

// flagsFirst moves the flags that follow positional arguments in front of
// them (`tune apply RUN TRIAL --runs-dir X`), since the flag package stops at
// the first positional argument. Everything after "--" stays positional.
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // an unknown flag: Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if len(pos) > 0 && pos[0] != "--" && len(flags) > 0 {
		return append(append(flags, "--"), pos...)
	}
	return append(flags, pos...)
}
