package cli_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// TestNumberFlagsPlain: an integer or float flag takes a plain decimal
// number only; what the flag package alone would read as another number
// (base prefixes, separators, a plus sign, infinity) is a usage error
// naming the flag and the value.
func TestNumberFlagsPlain(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // "" when accepted
	}{
		{"plain", []string{"--k", "5", "--effect", "0.5"}, ""},
		{"negative float", []string{"--effect=-0.5"}, ""},
		{"after the positional arguments", []string{"a", "b", "--k=7"}, ""},
		{"hex", []string{"--k", "0x10"}, `invalid value "0x10" for flag -k: want a plain decimal integer`},
		{"plus sign", []string{"-k=+4"}, `invalid value "+4" for flag -k`},
		{"underscore", []string{"a", "--k", "1_000"}, `invalid value "1_000" for flag -k`},
		{"hex float", []string{"--effect", "0x1p-3"}, `invalid value "0x1p-3" for flag -effect: want a plain finite decimal number`},
		{"infinity", []string{"--effect=Inf"}, `invalid value "Inf" for flag -effect`},
		{"surrounding space", []string{"--k", " 5"}, `invalid value " 5" for flag -k`},
		{"not a number: the flag package's error", []string{"--k", "x"}, `invalid value "x" for flag -k: parse error`},
		{"after --", []string{"--", "--k", "0x10"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := cli.Spec{Name: "test", Flags: []cli.Flag{cli.Int("k", 10, ""), cli.Float("effect", 0.1, ""), cli.String("name", "", "")}}
			_, err := spec.Parse(io.Discard, tc.args)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ce *cli.CodedError
			if !errors.As(err, &ce) || ce.Code != cli.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a usage error containing %q", err, tc.want)
			}
		})
	}
}
