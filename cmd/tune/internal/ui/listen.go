package ui

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/internal/httpserve"
)

// ListenAndServe serves the web app for o on addr until ctx ends. The
// microscope's backend keeps its files in a scratch directory removed
// afterwards; o.LoopbackOnly follows addr (a loopback address refuses
// other Host names), and an address beyond this machine is warned about
// on o.Log. The bound address is written to stderr ("tune ui: listening
// on ...") and, when set, to readyFile.
func ListenAndServe(ctx context.Context, o Options, addr, readyFile string, stderr io.Writer) error {
	scratch, err := os.MkdirTemp("", "tune-ui-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	o.BackendDir = filepath.Join(scratch, "backend")
	if host, _, err := net.SplitHostPort(addr); err == nil {
		ip := net.ParseIP(host)
		o.LoopbackOnly = host == "localhost" || (ip != nil && ip.IsLoopback())
	}
	srv, err := New(o)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("ui: %w", err)
	}
	bound := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && o.Log != nil {
		o.Log.Warn("listening beyond this machine: the web app has no authentication and writes labels", "addr", bound)
	}
	return serve(ctx, srv, ln, readyFile, stderr)
}

// serve serves h on ln until ctx ends, announcing the bound address.
func serve(ctx context.Context, h http.Handler, ln net.Listener, readyFile string, stderr io.Writer) error {
	return httpserve.Serve(ctx, h, ln, readyFile, func(addr string) { fmt.Fprintf(stderr, "tune ui: listening on http://%s\n", addr) })
}
