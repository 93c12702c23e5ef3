// Package enginetest serves the embedded engine in process for tests: a
// real engine behind a real HTTP server on 127.0.0.1, searched with the
// real client, without a tune binary or a process to start.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/fusiontune/fusiontune/backend/client"
	"github.com/fusiontune/fusiontune/backend/engine"
)

// ReadyTimeout is how long Serve waits for the engine to be ready.
const ReadyTimeout = time.Minute

// Served is an engine served on a loopback port.
type Served struct {
	// Client searches it.
	Client *client.Client
	stop   context.CancelFunc
	served chan error
}

// Serve builds an engine on cfg, serves it on a free port of 127.0.0.1
// and returns once it is ready (or ctx ends, or ReadyTimeout passes).
func Serve(ctx context.Context, cfg engine.Config) (*Served, error) {
	e, err := engine.New(cfg, engine.Options{})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.Close()
		return nil, err
	}
	ready, served := make(chan struct{}), make(chan error, 1)
	sctx, cancel := context.WithCancel(context.Background())
	go func() {
		served <- engine.NewServer(e, engine.ServerOptions{}).Serve(sctx, ln, func() { close(ready) })
		e.Close()
	}()
	s := &Served{stop: cancel, served: served}
	if s.Client, err = client.New("http://" + ln.Addr().String()); err != nil {
		s.Close()
		return nil, err
	}
	select {
	case <-ready:
		return s, nil
	case err := <-served:
		return nil, fmt.Errorf("engine stopped before it was ready: %w", err)
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	case <-time.After(ReadyTimeout):
		s.Close()
		return nil, errors.New("engine not ready after a minute")
	}
}

// Close stops the server and the engine and waits for them.
func (s *Served) Close() {
	if s == nil || s.stop == nil {
		return
	}
	s.stop()
	<-s.served
	s.stop = nil
}
