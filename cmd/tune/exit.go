package main

import (
	"errors"
	"flag"
	"fmt"
)

// Exit codes. They are the tool's contract with scripts and CI; add one only
// with a reason and document it in the README.
const (
	exitOK     = 0 // success
	exitFailed = 1 // a run failed or a gate failed
	exitUsage  = 2 // usage error or invalid input
	// exitPartial: the sweep finished and recorded every trial, but some
	// trials failed (within eval.failure_budget). Scripts can tell "tuned,
	// with casualties" from a clean run (0) and a failed one (1).
	exitPartial = 3
)

// codedError attaches an exit code to an error. Subcommands return errors;
// exitCode reads the code once, in run.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageErrorf reports a command-line usage problem (exit 2).
func usageErrorf(format string, args ...any) error {
	return &codedError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// inputError marks err as caused by invalid user input (exit 2): a malformed
// file, an unknown parameter, a bad setting.
func inputError(err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: exitUsage, err: err}
}

// failedError marks err as a failed run or gate (exit 1). Unmarked errors
// are treated the same way.
func failedError(err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: exitFailed, err: err}
}

// partialError marks a sweep that finished with failed trials (exit 3).
func partialError(err error) error {
	return &codedError{code: exitPartial, err: err}
}

// exitCode maps an error returned by a subcommand to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitFailed
}
