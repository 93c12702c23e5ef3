package cli_test

import (
	"io"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// TestArgs: Parse checks the positional arguments against the spec's
// Args, flags before or after them, the message naming the command; a
// spec without Args takes any.
func TestArgs(t *testing.T) {
	flags := []cli.Flag{cli.Bool("force", false, "")}
	for _, tc := range []struct {
		name string
		args *cli.Args
		in   []string
		want string // "" for no error
	}{
		{"none", cli.NoArgs, nil, ""},
		{"none, flag", cli.NoArgs, []string{"--force"}, ""},
		{"none, one", cli.NoArgs, []string{"x", "--force"}, `apply: unexpected argument "x"`},
		{"none, hint", &cli.Args{Want: "files go after --experiments"}, []string{"x.json"}, `apply: unexpected argument "x.json" (files go after --experiments)`},
		{"range, min", cli.ArgRange(1, 2, "RUN and optionally TRIAL"), []string{"r"}, ""},
		{"range, max", cli.ArgRange(1, 2, "RUN and optionally TRIAL"), []string{"--force", "r", "t"}, ""},
		{"range, too few", cli.ArgRange(1, 2, "RUN and optionally TRIAL"), nil, "apply: want RUN and optionally TRIAL (got 0 arguments)"},
		{"range, too many", cli.ArgRange(1, 2, "RUN and optionally TRIAL"), []string{"a", "b", "c"}, "apply: want RUN and optionally TRIAL (got 3 arguments)"},
		{"unchecked", nil, []string{"a", "b", "c"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cli.Spec{Name: "apply", Flags: flags, Args: tc.args}.Parse(io.Discard, tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%q: %v", tc.in, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want || cli.Code(err) != cli.ExitUsage):
				t.Errorf("%q: err = %v (code %d), want %q (code 2)", tc.in, err, cli.Code(err), tc.want)
			}
		})
	}
}

// TestArgsDeclarationPanics: bounds no command line can meet, or a range
// without a name for its arguments, are caught when the spec is used.
func TestArgsDeclarationPanics(t *testing.T) {
	for _, a := range []*cli.Args{{Min: 2, Max: 1, Want: "X"}, {Min: -1, Want: "X"}, {Max: 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Args %+v did not panic", *a)
				}
			}()
			cli.Spec{Name: "x", Args: a}.FlagSet(io.Discard)
		}()
	}
}
