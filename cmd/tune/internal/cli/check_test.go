package cli_test

import (
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// TestFlagRules: Range, OneOf and Required are checked once by Parse, the
// message naming the command, the flag, what it wants and the value; the
// defaults and values inside pass; --help is not checked.
func TestFlagRules(t *testing.T) {
	spec := cli.Spec{Name: "shadow", Flags: []cli.Flag{
		cli.Int("k", 10, "depth").Range(1, 100),
		cli.Int64("budget", 0, "calls").Range(0, 1_000_000_000_000),
		cli.Float("alpha", 0.05, "rate").Range(0, 0.5),
		cli.String("format", "text", "output").OneOf("text", "json", "md").AlsoAccepts("markdown"),
		cli.Int("changed", 5, "most changed").Min(1),
		cli.String("log", "x", "log file").Required(),
		cli.Value("m", func() flag.Value { return new(cli.StringList) }, "measures, no rule"),
	}}
	for _, tc := range []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"--k", "1", "--k", "100", "--budget", "1000000000000", "--alpha", "0.5", "--format", "md", "--changed", "1000000", "-m", "P.5"}, ""},
		{[]string{"--format", "markdown"}, ""},
		{[]string{"--changed", "0"}, "shadow: --changed: want an integer >= 1 (got 0)"},
		{[]string{"--k", "0"}, "shadow: --k: want an integer in [1, 100] (got 0)"},
		{[]string{"--k", "101"}, "shadow: --k: want an integer in [1, 100] (got 101)"},
		{[]string{"--budget", "-1"}, "shadow: --budget: want an integer in [0, 1000000000000] (got -1)"},
		{[]string{"--alpha", "0.7"}, "shadow: --alpha: want a number in [0, 0.5] (got 0.7)"},
		{[]string{"--format", "csv"}, `shadow: --format: want text, json or md (got "csv")`},
		{[]string{"--log", ""}, "shadow: --log is required"},
	} {
		_, err := spec.Parse(io.Discard, tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || cli.Code(err) != cli.ExitUsage):
			t.Errorf("%q: err = %v (code %d), want %q (code 2)", tc.args, err, cli.Code(err), tc.want)
		}
	}
	if _, err := spec.Parse(io.Discard, []string{"--k", "0", "--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: err = %v, want flag.ErrHelp", err)
	}
}

// TestAlternatives: choices as prose.
func TestAlternatives(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{{[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := cli.Alternatives(tc.in); got != tc.want {
			t.Errorf("Alternatives(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRangeOnStringPanics: a rule on a flag of the wrong kind is a
// programming error caught when the spec is declared.
func TestRangeOnStringPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Range on a string flag did not panic")
		}
	}()
	cli.String("format", "text", "").Range(1, 2)
}
