package cli_test

import (
	"errors"
	"flag"
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
)

// libInputError stands for a library's input-error type (inputerr.Error):
// it knows its exit code without importing cli.
type libInputError struct{ error }

func (libInputError) ExitCode() int { return cli.ExitUsage }

// TestCode: the first error in the chain with a code decides; an error
// without one is a failed run; nil and --help are 0.
func TestCode(t *testing.T) {
	plain := errors.New("boom")
	lib := libInputError{errors.New("bad file")}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, cli.ExitOK},
		{"help", fmt.Errorf("x: %w", flag.ErrHelp), cli.ExitOK},
		{"plain", plain, cli.ExitFailed},
		{"usage", cli.UsageErrorf("want RUN"), cli.ExitUsage},
		{"input", cli.InputError(plain), cli.ExitUsage},
		{"partial", cli.PartialError(plain), cli.ExitPartial},
		{"library input error, wrapped", fmt.Errorf("sweep: %w", lib), cli.ExitUsage},
		{"marked failed outside a library input error", cli.FailedError(fmt.Errorf("sweep: %w", lib)), cli.ExitFailed},
		{"marked input outside a failed one", cli.InputError(cli.FailedError(plain)), cli.ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cli.Code(tc.err); got != tc.want {
				t.Errorf("Code(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}
