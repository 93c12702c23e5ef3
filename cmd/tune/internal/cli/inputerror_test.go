package cli_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/internal/inputerr"
)

// TestInputErrorExitCode: a command returning the library's input error,
// however wrapped, exits 2; any other error of the library exits 1.
func TestInputErrorExitCode(t *testing.T) {
	if got := cli.Code(fmt.Errorf("resume: %w", inputerr.Wrap(errors.New("other experiment file")))); got != cli.ExitUsage {
		t.Errorf("wrapped InputErr: code %d, want %d", got, cli.ExitUsage)
	}
	if got := cli.Code(fmt.Errorf("trial t1: %w", errors.New("backend down"))); got != cli.ExitFailed {
		t.Errorf("plain error: code %d, want %d", got, cli.ExitFailed)
	}
}
