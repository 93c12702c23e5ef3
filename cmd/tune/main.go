// Command tune tunes hybrid search: it sweeps fusion and indexing settings
// against a real search backend, scores every trial on a judged golden set and
// promotes the winner safely.
//
// main is the only place that touches the process: it hands the arguments,
// standard streams and a signal-aware context to run and turns the returned
// error into an exit code (see exit.go).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
