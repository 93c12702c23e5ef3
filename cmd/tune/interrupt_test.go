package main

import (
	"context"
	"errors"
	"testing"
)

func TestUntilInterrupted(t *testing.T) {
	errOwn := errors.New("its own error")
	block := make(chan struct{})
	defer close(block)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     func() context.Context
		f       func() error
		want    error
		wantRan bool
	}{
		{"returns the step's error", context.Background, func() error { return errOwn }, errOwn, true},
		{"returns nil when the step ends", context.Background, func() error { return nil }, nil, true},
		{"interrupted before it starts", func() context.Context { return cancelled }, func() error { return nil }, errInterrupted, false},
		{"abandons a step still running", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			go cancel()
			return ctx
		}, func() error { <-block; return nil }, errInterrupted, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := make(chan struct{}, 1)
			err := untilInterrupted(tt.ctx(), func() error { ran <- struct{}{}; return tt.f() })
			if !errors.Is(err, tt.want) && err != tt.want {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want == errInterrupted && !tt.wantRan {
				select {
				case <-ran:
					t.Error("the step ran although the context was already done")
				default:
				}
			}
		})
	}
}

// TestReadOnlyCommandsAbandonable: the commands marked read-only are the
// ones that only read or write atomically; the others (sweeps,
// promotions, servers, judging) must clean up on a signal themselves.
func TestReadOnlyCommandsAbandonable(t *testing.T) {
	want := map[string]bool{"check": true, "compare": true, "eval": true, "export": true, "gate": true, "leaderboard": true,
		"plan": true, "report": true, "runs": true, "version": true}
	for _, c := range commands() {
		if c.readOnly != want[c.name] {
			t.Errorf("%s: readOnly %v, want %v", c.name, c.readOnly, want[c.name])
		}
	}
}
