package main

import (
	"context"
	"errors"
)

// errInterrupted is what a command stopped by SIGINT or SIGTERM returns
// (exit 1).
var errInterrupted = errors.New("interrupted")

// untilInterrupted runs f, a step that writes nothing a half-done run
// could leave behind (reading and checking files), and returns its error,
// or errInterrupted as soon as ctx is done: the process then exits within
// the second the signal asks for, however long f would still take.
func untilInterrupted(ctx context.Context, f func() error) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return errInterrupted
	}
}
