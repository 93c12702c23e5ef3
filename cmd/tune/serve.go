package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/backend/engine"
)

var serveSpec = cli.Spec{Name: "serve", Usage: "--config engine.yaml [--listen ADDR] [--ready-file PATH] [--max-query-terms N]", Flags: []cli.Flag{
	cli.String("config", "", "engine configuration `file` (YAML), read once at start").Required(),
	cli.String("listen", "", "listen `address`, overriding the config's listen (port 0 picks a free port)"),
	cli.String("ready-file", "", "write the bound address to this `file` once the index is ready"),
	cli.Bool("v", false, "log every search"),
	cli.Bool("no-query-log", false, "ignore the config's log and shadow blocks (the tuner's own trials and checks never log)"),
	cli.Int("max-query-terms", engine.DefaultMaxQueryTerms, fmt.Sprintf("refuse (400) a query with more terms, in [1, %d]", engine.MaxQueryTermsLimit)).Range(1, engine.MaxQueryTermsLimit)}}

func runServe(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(serveSpec, args)
	if err != nil {
		return err
	}
	configPath, readyFile := fs.Str("config"), fs.Str("ready-file")
	opts := engine.ServerOptions{MaxQueryTerms: fs.Int("max-query-terms")}
	cfg, err := serveConfig(fs)
	if err != nil {
		return err
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
	engine.TuneGC(os.Getenv) // GOGC 40 unless set: a cold build's peak memory
	if !fs.Bool("no-query-log") {
		closeTraffic, err := openTraffic(ctx, cfg, configPath, log, &opts)
		if err != nil {
			return err
		}
		defer closeTraffic()
	}
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

// serveConfig checks serve's arguments and loads the engine config,
// --listen overriding its listen.
func serveConfig(fs *cli.Parsed) (engine.Config, error) {
	configPath, listen := fs.Str("config"), fs.Str("listen")
	if fs.NArg() > 0 {
		return engine.Config{}, usageErrorf("serve: unexpected arguments %q", fs.Args())
	}
	cfg, err := engine.LoadConfig(configPath)
	if err != nil {
		return engine.Config{}, inputError(err)
	}
	if listen != "" {
		if msg := engine.CheckListen(listen); msg != "" {
			return engine.Config{}, usageErrorf("serve: --listen: %s", msg)
		}
		cfg.Listen = listen
	}
	return cfg, nil
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

// openTraffic opens the query log and the shadow engine cfg asks for
// into opts (the shadow engine builds in the background); the returned
// function closes them.
func openTraffic(ctx context.Context, cfg engine.Config, configPath string, log *slog.Logger, opts *engine.ServerOptions) (func(), error) {
	var err error
	if opts.QueryLog, err = engine.OpenQueryLog(cfg); err != nil {
		return nil, inputError(fmt.Errorf("%s: log: %w", configPath, err))
	}
	if opts.QueryLog == nil {
		return func() {}, nil
	}
	log.Info("query log on", "path", cfg.Log.Path)
	if opts.Shadow, err = engine.LoadShadow(cfg, engine.Options{Logger: log}); err != nil {
		opts.QueryLog.Close()
		return nil, inputError(fmt.Errorf("%s: %w", configPath, err))
	}
	sh := opts.Shadow
	if sh == nil {
		return func() { opts.QueryLog.Close() }, nil
	}
	go func() {
		if err := sh.Engine.Build(ctx); err != nil {
			log.Error("shadow engine not built: searches are not shadowed", "err", err)
			return
		}
		log.Info("shadowing searches", "config", cfg.Shadow.Config, "percent", sh.Percent)
	}()
	return func() { sh.Engine.Close(); opts.QueryLog.Close() }, nil
}
