package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/cli"
	"log/slog"
	"net"

	"github.com/fusiontune/fusiontune/backend/engine"
)

var serveSpec = cli.Spec{Name: "serve", Usage: "--config engine.yaml [--listen ADDR] [--ready-file PATH] [--max-query-terms N]", Flags: []cli.Flag{
	cli.String("config", "", "engine configuration `file` (YAML), read once at start"),
	cli.String("listen", "", "listen `address`, overriding the config's listen (port 0 picks a free port)"),
	cli.String("ready-file", "", "write the bound address to this `file` once the index is ready"),
	cli.Bool("v", false, "log every search"),
	cli.Int("max-query-terms", engine.DefaultMaxQueryTerms, fmt.Sprintf("refuse (400) a query with more terms, in [1, %d]", engine.MaxQueryTermsLimit))}}

func runServe(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(serveSpec, args)
	if err != nil {
		return err
	}
	configPath, listen, readyFile, maxTerms := fs.Str("config"), fs.Str("listen"), fs.Str("ready-file"), fs.Int("max-query-terms")
	opts := engine.ServerOptions{MaxQueryTerms: maxTerms}
	if err := engine.CheckServerOptions(opts); err != nil || maxTerms == 0 {
		return usageErrorf("serve: --max-query-terms: want an integer in [1, %d] (got %d)", engine.MaxQueryTermsLimit, maxTerms)
	}
	if configPath == "" {
		return usageErrorf("serve: --config is required")
	}
	if fs.NArg() > 0 {
		return usageErrorf("serve: unexpected arguments %q", fs.Args())
	}
	cfg, err := engine.LoadConfig(configPath)
	if err != nil {
		return inputError(err)
	}
	if listen != "" {
		if msg := engine.CheckListen(listen); msg != "" {
			return usageErrorf("serve: --listen: %s", msg)
		}
		cfg.Listen = listen
	}
	level := slog.LevelInfo
	if fs.Bool("v") {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	e, err := engine.New(cfg, engine.Options{Logger: log})
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", configPath, err))
	}
	defer e.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return failedError(fmt.Errorf("serve: %w", err))
	}
	addr := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond this machine: the search API has no authentication", "addr", addr)
	}
	log.Info("indexing; /healthz answers 503 until ready", "addr", addr, "config", configPath)
	var readyErr error
	ready := func() { readyErr = a.announceReady(log, e, addr, readyFile) }
	opts.Logger = log
	srv := engine.NewServer(e, opts)
	if err := srv.Serve(ctx, ln, ready); err != nil {
		return failedError(err)
	}
	log.Info("stopped", "addr", addr)
	return failedError(readyErr)
}

// announceReady logs that the engine is ready at addr and writes the
// ready file, if any.
func (a *app) announceReady(log *slog.Logger, e *engine.Engine, addr, readyFile string) error {
	st := e.Stats()
	log.Info("ready", "addr", addr, "docs", st.Docs, "chunks", st.Chunks,
		"bm25_cached", st.LexicalCached, "dense_cached", st.DenseCached, "build", st.Total.String())
	fmt.Fprintf(a.stderr, "tune serve: listening on http://%s\n", addr)
	if readyFile == "" {
		return nil
	}
	err := atomicfile.Replace(readyFile, []byte(addr+"\n"), 0o600)
	if err != nil {
		log.Error("ready file not written", "err", err)
		return fmt.Errorf("ready file: %w", err)
	}
	return nil
}
