package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/backend/engine"
)

func runServe(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("serve", "--config engine.yaml [--listen ADDR] [--ready-file PATH] [--max-query-terms N]", a.stderr)
	configPath := fs.String("config", "", "engine configuration `file` (YAML), read once at start")
	listen := fs.String("listen", "", "listen `address`, overriding the config's listen (port 0 picks a free port)")
	readyFile := fs.String("ready-file", "", "write the bound address to this `file` once the index is ready")
	verbose := fs.Bool("v", false, "log every search")
	noQueryLog := fs.Bool("no-query-log", false, "ignore the config's log block (the tuner's own trials and checks never log)")
	maxTerms := fs.Int("max-query-terms", engine.DefaultMaxQueryTerms, fmt.Sprintf("refuse (400) a query with more terms, in [1, %d]", engine.MaxQueryTermsLimit))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opts := engine.ServerOptions{MaxQueryTerms: *maxTerms}
	if err := engine.CheckServerOptions(opts); err != nil || *maxTerms == 0 {
		return usageErrorf("serve: --max-query-terms: want an integer in [1, %d] (got %d)", engine.MaxQueryTermsLimit, *maxTerms)
	}
	if *configPath == "" {
		return usageErrorf("serve: --config is required")
	}
	if fs.NArg() > 0 {
		return usageErrorf("serve: unexpected arguments %q", fs.Args())
	}
	cfg, err := engine.LoadConfig(*configPath)
	if err != nil {
		return inputError(err)
	}
	if *listen != "" {
		if msg := engine.CheckListen(*listen); msg != "" {
			return usageErrorf("serve: --listen: %s", msg)
		}
		cfg.Listen = *listen
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	e, err := engine.New(cfg, engine.Options{Logger: log})
	if err != nil {
		return inputError(fmt.Errorf("%s: %w", *configPath, err))
	}
	defer e.Close()
	if !*noQueryLog {
		if opts.QueryLog, err = engine.OpenQueryLog(cfg); err != nil {
			return inputError(fmt.Errorf("%s: log: %w", *configPath, err))
		}
		if opts.QueryLog != nil {
			defer opts.QueryLog.Close()
			log.Info("query log on", "path", cfg.Log.Path)
		}
		if opts.Shadow, err = engine.LoadShadow(cfg, engine.Options{Logger: log}); err != nil {
			return inputError(fmt.Errorf("%s: %w", *configPath, err))
		}
		if sh := opts.Shadow; sh != nil {
			defer sh.Engine.Close()
			go func() {
				if err := sh.Engine.Build(ctx); err != nil {
					log.Error("shadow engine not built: searches are not shadowed", "err", err)
					return
				}
				log.Info("shadowing searches", "config", cfg.Shadow.Config, "percent", sh.Percent)
			}()
		}
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return failedError(fmt.Errorf("serve: %w", err))
	}
	addr := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond this machine: the search API has no authentication", "addr", addr)
	}
	log.Info("indexing; /healthz answers 503 until ready", "addr", addr, "config", *configPath)
	var readyErr error
	ready := func() { readyErr = a.announceReady(log, e, addr, *readyFile) }
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
	err := writeReadyFile(readyFile, addr)
	if err != nil {
		log.Error("ready file not written", "err", err)
	}
	return err
}

// writeReadyFile writes addr and a newline to path atomically, so a reader
// never sees a partial address.
func writeReadyFile(path, addr string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ready-*")
	if err != nil {
		return fmt.Errorf("ready file: %w", err)
	}
	_, werr := fmt.Fprintln(tmp, addr)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ready file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ready file: %w", err)
	}
	return nil
}
