package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// Serve serves h on ln until ctx ends, then shuts down, giving requests
// in flight 5 s. Once serving it calls announce with the bound address
// and, when readyFile is set, writes the address and a newline there
// (replacing the file); a failed write stops the server.
func Serve(ctx context.Context, h http.Handler, ln net.Listener, readyFile string, announce func(addr string)) error {
	bound := ln.Addr().String()
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	announce(bound)
	if readyFile != "" {
		if err := atomicfile.Replace(readyFile, []byte(bound+"\n"), 0o600); err != nil {
			hs.Close()
			return fmt.Errorf("ready file: %w", err)
		}
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
