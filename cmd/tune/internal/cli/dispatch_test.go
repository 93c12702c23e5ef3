package cli_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// table is a two-command table recording which command ran with which
// arguments.
func table(got *string) cli.Table {
	rec := func(name string) func(context.Context, []string) error {
		return func(_ context.Context, args []string) error {
			*got = name + " " + strings.Join(args, " ")
			return nil
		}
	}
	return cli.Table{
		Commands:  []cli.Command{{Name: "gate", Summary: "check gates", Run: rec("gate")}, {Name: "sweep", Summary: "run a sweep", Run: rec("sweep")}},
		Default:   "sweep",
		BoolFlags: map[string]bool{"force": true},
		Help:      "head\n",
		Footer:    "foot\n",
	}
}

// TestDispatch: the command word may follow global flags, a flag's value
// is never taken for a command, no command runs the default, and a
// mistyped command is a usage error with a did-you-mean.
func TestDispatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // the command that ran and its arguments
		err  string
		code int
	}{
		{"command first", []string{"gate", "latest"}, "gate latest", "", 0},
		{"after a global flag", []string{"--config", "t.yaml", "gate", "latest"}, "gate --config t.yaml latest", "", 0},
		{"flag value named like a command", []string{"--experiments", "gate"}, "sweep --experiments gate", "", 0},
		{"after a bool flag", []string{"--force", "gate"}, "gate --force", "", 0},
		{"no command: the default", []string{"--experiments", "x.json"}, "sweep --experiments x.json", "", 0},
		{"mistyped", []string{"gte"}, "", `unknown command "gte" (did you mean gate?)`, cli.ExitUsage},
		{"unknown", []string{"zzzzzz"}, "", `unknown command "zzzzzz"; run 'tune help'`, cli.ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			err := table(&got).Dispatch(context.Background(), tc.args, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || cli.Code(err) != tc.code {
					t.Fatalf("err = %v (code %d), want %q (code %d)", err, cli.Code(err), tc.err, tc.code)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ran %q (err %v), want %q", got, err, tc.want)
			}
		})
	}
}

// TestHelp: `help` prints the head, one line per command and the foot.
func TestHelp(t *testing.T) {
	var got string
	var out bytes.Buffer
	if err := table(&got).Dispatch(context.Background(), []string{"help"}, &out); err != nil {
		t.Fatal(err)
	}
	want := "head\n  gate         check gates\n  sweep        run a sweep\nfoot\n"
	if out.String() != want {
		t.Fatalf("help:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestSpecParse: flags after positional arguments, values by type, Given,
// bound keys, --help as flag.ErrHelp (exit 0) and an unknown flag as a
// one-line usage error with a did-you-mean.
func TestSpecParse(t *testing.T) {
	spec := cli.Spec{Name: "apply", Usage: "RUN", Flags: []cli.Flag{
		cli.String("runs-dir", "runs", "").Bind("runs_dir"), cli.Bool("force", false, ""), cli.Int("k", 3, ""),
	}}
	p, err := spec.Parse(io.Discard, []string{"RUN", "--force", "--runs-dir", "r"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Arg(0) != "RUN" || !p.Bool("force") || p.Str("runs-dir") != "r" || p.Int("k") != 3 || !p.Given("runs-dir") || p.Given("k") {
		t.Fatalf("parsed %v %v %q %d", p.Args(), p.Bool("force"), p.Str("runs-dir"), p.Int("k"))
	}
	if keys := p.Keys(); len(keys) != 1 || keys["runs-dir"] != "runs_dir" {
		t.Fatalf("keys = %v", keys)
	}
	var usage bytes.Buffer
	if _, err := spec.Parse(&usage, []string{"--help"}); !errors.Is(err, flag.ErrHelp) || cli.Code(err) != cli.ExitOK || !strings.HasPrefix(usage.String(), "Usage: tune apply RUN\n") {
		t.Fatalf("--help: err %v, usage %q", err, usage.String())
	}
	_, err = spec.Parse(io.Discard, []string{"--forse"})
	want := "apply: unknown flag --forse (did you mean --force?); run 'tune apply --help' for its flags"
	if err == nil || err.Error() != want || cli.Code(err) != cli.ExitUsage {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
