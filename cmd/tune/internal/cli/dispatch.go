package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fusiontune/fusiontune/internal/suggest"
)

// Command is one command of a table: its name as typed, a one-line
// summary for the help, and what runs it with the arguments other than
// the command word.
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, args []string) error
}

// Table is a tool's commands in the order of its help.
type Table struct {
	Commands []Command
	// Default runs when no argument names a command.
	Default string
	// BoolFlags are the flags of any command that take no value, so that
	// the argument after one can be the command word.
	BoolFlags map[string]bool
	// Help is printed by `tune help` before the command list; Footer after.
	Help, Footer string
}

// Lookup returns the command called name.
func (t Table) Lookup(name string) (Command, bool) {
	for _, c := range t.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Dispatch finds the command among args, wherever it stands: global flags
// may come before it (`tune --config t.yaml gate latest`). With no command,
// the default runs. `help [COMMAND]` prints the help to stdout.
func (t Table) Dispatch(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			if len(args) > 1 {
				if c, ok := t.Lookup(args[1]); ok {
					return c.Run(ctx, []string{"--help"})
				}
				return t.unknown(args[1])
			}
			t.PrintUsage(stdout)
			return nil
		}
	}
	if i := t.commandIndex(args); i >= 0 {
		c, _ := t.Lookup(args[i])
		rest := append(append([]string{}, args[:i]...), args[i+1:]...)
		return c.Run(ctx, rest)
	}
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if (i == 0 && !strings.HasPrefix(arg, "-")) || (!strings.HasPrefix(arg, "-") && !t.takesValue(args[i-1]) && suggest.Closest(arg, t.names()) != "") {
			return t.unknown(arg)
		}
	}
	c, _ := t.Lookup(t.Default)
	return c.Run(ctx, args)
}

// commandIndex is the position of the command in args, -1 for none: the
// first argument naming a command that is not a preceding flag's value.
func (t Table) commandIndex(args []string) int {
	for i, arg := range args {
		if arg == "--" {
			return -1
		}
		if strings.HasPrefix(arg, "-") {
			continue
		}
		if _, ok := t.Lookup(arg); ok && (i == 0 || !t.takesValue(args[i-1])) {
			return i
		}
		if i == 0 {
			return -1 // the first argument is a positional one, not a command
		}
	}
	return -1
}

// takesValue reports whether arg is a flag whose value is the next
// argument.
func (t Table) takesValue(arg string) bool {
	if !strings.HasPrefix(arg, "-") || arg == "--" || strings.Contains(arg, "=") {
		return false
	}
	return !t.BoolFlags[strings.TrimLeft(arg, "-")]
}

func (t Table) names() []string {
	var names []string
	for _, c := range t.Commands {
		names = append(names, c.Name)
	}
	return names
}

// unknown is the one-line error for a mistyped command.
func (t Table) unknown(name string) error {
	if s := suggest.Closest(name, t.names()); s != "" {
		return UsageErrorf("unknown command %q (did you mean %s?); run 'tune help' for the commands", name, s)
	}
	return UsageErrorf("unknown command %q; run 'tune help' for the commands", name)
}

// PrintUsage prints the help: Help, the commands with their summaries
// in one column at least 12 wide and as wide as the longest name,
// Footer.
func (t Table) PrintUsage(w io.Writer) {
	fmt.Fprint(w, t.Help)
	width := 12 // the column of the first table; longer names widen it
	for _, c := range t.Commands {
		width = max(width, len(c.Name))
	}
	for _, c := range t.Commands {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprint(w, t.Footer)
}

// Sub dispatches a command's subcommands (`tune judge run ...`): args[0]
// names one of cmds; none or help prints the help (to stderr with a usage
// error when none is named), ending with examples. name is the parent
// command, usage its usage line.
func Sub(ctx context.Context, name, usage, examples string, cmds []Command, args []string, stdout, stderr io.Writer) error {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	printHelp := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: tune %s %s\n\nSubcommands:\n", name, usage)
		for _, c := range cmds {
			fmt.Fprintf(w, "  %-8s %s\n", c.Name, c.Summary)
		}
		fmt.Fprintf(w, "\nRun 'tune %s SUBCOMMAND --help' for its flags.\n", name)
		PrintExamples(w, examples)
	}
	if len(args) == 0 {
		printHelp(stderr)
		return UsageErrorf("%s: want a subcommand (%s)", name, strings.Join(names, ", "))
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printHelp(stdout)
		return nil
	}
	for _, c := range cmds {
		if c.Name == args[0] {
			return c.Run(ctx, args[1:])
		}
	}
	if s := suggest.Closest(args[0], names); s != "" {
		return UsageErrorf("%s: unknown subcommand %q (did you mean %s?); run 'tune %s --help'", name, args[0], s, name)
	}
	return UsageErrorf("%s: unknown subcommand %q (want %s)", name, args[0], strings.Join(names, ", "))
}
