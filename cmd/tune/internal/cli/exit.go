package cli

import (
	"errors"
	"flag"
	"fmt"
)

// Exit codes. They are the tool's contract with scripts and CI; add one only
// with a reason and document it in cmd/tune/internal/refdoc (the exit
// codes page).
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // a run failed or a gate failed
	ExitUsage  = 2 // usage error or invalid input
	// ExitPartial: the sweep finished and recorded every trial, but some
	// trials failed (within eval.failure_budget). Scripts can tell "tuned,
	// with casualties" from a clean run (0) and a failed one (1).
	ExitPartial = 3
)

// CodedError attaches an exit code to an error. Commands return errors;
// Code reads the code once, in main.
type CodedError struct {
	Code int
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// ExitCode returns the code attached to the error.
func (e *CodedError) ExitCode() int { return e.Code }

// exitCoder is an error that knows its exit code: a CodedError, or a
// library's error that marks the user's input (inputerr.Error:
// ExitCode 2, as runs' latency view error) without importing this package.
type exitCoder interface{ ExitCode() int }

// UsageErrorf reports a command-line usage problem (exit 2).
func UsageErrorf(format string, args ...any) error {
	return &CodedError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// InputError marks err as caused by invalid user input (exit 2): a malformed
// file, an unknown parameter, a bad setting.
func InputError(err error) error {
	if err == nil {
		return nil
	}
	return &CodedError{Code: ExitUsage, Err: err}
}

// FailedError marks err as a failed run or gate (exit 1). Unmarked errors
// are treated the same way.
func FailedError(err error) error {
	if err == nil {
		return nil
	}
	return &CodedError{Code: ExitFailed, Err: err}
}

// PartialError marks a sweep that finished with failed trials (exit 3).
func PartialError(err error) error {
	return &CodedError{Code: ExitPartial, Err: err}
}

// Code maps an error returned by a command to the process exit code: the
// code of the first error in its chain that has one (exitCoder), else
// ExitFailed.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	var ce exitCoder
	if errors.As(err, &ce) {
		return ce.ExitCode()
	}
	return ExitFailed
}
