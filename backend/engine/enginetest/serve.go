package enginetest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// Main is the TestMain of a package whose tests sweep the embedded
// backend in process. That backend runs the engine as `EXE serve
// --config ... --listen ... --ready-file ... --no-query-log`, EXE being
// the running executable: in a test binary, the test binary itself. Main
// serves the engine (engine.ListenAndServe, as tune serve does) when the
// binary is started so, and runs the tests otherwise.
func Main(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(serve(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// serve is the test binary as `tune serve`: it serves until SIGINT or
// SIGTERM and returns the exit code.
func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	config := fs.String("config", "", "engine config file")
	listen := fs.String("listen", "", "listen address")
	ready := fs.String("ready-file", "", "ready file")
	noLog := fs.Bool("no-query-log", false, "ignore the config's query log")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := engine.ListenAndServe(ctx, engine.ServeConfig{ConfigPath: *config, Listen: *listen, ReadyFile: *ready, NoQueryLog: *noLog,
		MaxQueryTerms: engine.DefaultMaxQueryTerms, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}
