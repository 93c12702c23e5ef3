package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/querylog"
)

// ServeConfig is what `tune serve` asks for: an engine config file served
// over HTTP until the context ends.
type ServeConfig struct {
	// ConfigPath is the engine config file (LoadConfig), read once.
	ConfigPath string
	// Listen, when set, overrides the config's listen address.
	Listen string
	// ReadyFile, when set, receives the bound address once the index is
	// ready.
	ReadyFile string
	// Verbose logs every search.
	Verbose bool
	// NoQueryLog ignores the config's log and shadow blocks.
	NoQueryLog bool
	// MaxQueryTerms bounds a query's terms (ServerOptions).
	MaxQueryTerms int
	// Log receives the structured log and the "listening on" line.
	Log io.Writer
	// OnReady, when set, is called once the index is ready, before the
	// ready file is written (tune serve restores its collector target:
	// BuildGC).
	OnReady func()
	// Getenv reads the API key variables of the engine's and the shadow
	// engine's embedders (Options.Getenv); tune serve passes os.Getenv.
	Getenv func(string) string
	// ShadowDiff compares a served list with the shadow engine's
	// (Shadow.Diff); tune serve passes metrics/stats' comparison. Without
	// it no search is shadowed.
	ShadowDiff func(served, shadow []string, k int) querylog.Diff
}

// ListenAndServe loads the engine config, builds the engine and serves it
// (NewServer) on the config's address until ctx ends: /healthz answers
// 503 until the index is ready, then the ready file is written. The query
// log and the shadow engine the config asks for run beside it unless
// NoQueryLog. Errors of the user's input are input errors (inputerr.Error).
func ListenAndServe(ctx context.Context, sc ServeConfig) error {
	cfg, err := LoadConfig(sc.ConfigPath)
	if err != nil {
		return inputerr.Wrap(err)
	}
	if sc.Listen != "" {
		if msg := CheckListen(sc.Listen); msg != "" {
			return inputerr.Wrap(fmt.Errorf("serve: --listen: %s", msg))
		}
		cfg.Listen = sc.Listen
	}
	level := slog.LevelInfo
	if sc.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(sc.Log, &slog.HandlerOptions{Level: level}))
	e, err := New(cfg, Options{Logger: log, Getenv: sc.Getenv})
	if err != nil {
		return inputerr.Wrap(fmt.Errorf("%s: %w", sc.ConfigPath, err))
	}
	defer e.Close()
	opts := ServerOptions{MaxQueryTerms: sc.MaxQueryTerms, Logger: log}
	if !sc.NoQueryLog {
		closeTraffic, err := sc.openTraffic(ctx, cfg, log, &opts)
		if err != nil {
			return err
		}
		defer closeTraffic()
	}
	return sc.serve(ctx, e, cfg.Listen, log, opts)
}

// serve listens on addr and serves e until ctx ends.
func (sc ServeConfig) serve(ctx context.Context, e *Engine, addr string, log *slog.Logger, opts ServerOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	addr = ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond this machine: the search API has no authentication", "addr", addr)
	}
	log.Info("indexing; /healthz answers 503 until ready", "addr", addr, "config", sc.ConfigPath)
	var readyErr error
	ready := func() {
		if sc.OnReady != nil {
			sc.OnReady()
		}
		readyErr = sc.announceReady(log, e, addr)
	}
	if err := NewServer(e, opts).Serve(ctx, ln, ready); err != nil {
		return err
	}
	log.Info("stopped", "addr", addr)
	return readyErr
}

// announceReady logs that the engine is ready at addr and writes the
// ready file, if any.
func (sc ServeConfig) announceReady(log *slog.Logger, e *Engine, addr string) error {
	st := e.Stats()
	log.Info("ready", "addr", addr, "docs", st.Docs, "chunks", st.Chunks,
		"bm25_cached", st.LexicalCached, "dense_cached", st.DenseCached, "build", st.Total.String())
	fmt.Fprintf(sc.Log, "tune serve: listening on http://%s\n", addr)
	if sc.ReadyFile == "" {
		return nil
	}
	err := atomicfile.Replace(sc.ReadyFile, []byte(addr+"\n"), 0o600)
	if err != nil {
		log.Error("ready file not written", "err", err)
		return fmt.Errorf("ready file: %w", err)
	}
	return nil
}

// openTraffic opens the query log and the shadow engine cfg (read from
// sc.ConfigPath) asks for into opts (the shadow engine builds in the
// background); the returned function closes them.
func (sc ServeConfig) openTraffic(ctx context.Context, cfg Config, log *slog.Logger, opts *ServerOptions) (func(), error) {
	configPath := sc.ConfigPath
	var err error
	if opts.QueryLog, err = OpenQueryLog(cfg); err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("%s: log: %w", configPath, err))
	}
	if opts.QueryLog == nil {
		return func() {}, nil
	}
	log.Info("query log on", "path", cfg.Log.Path)
	if opts.Shadow, err = LoadShadow(cfg, Options{Logger: log, Getenv: sc.Getenv}); err != nil {
		opts.QueryLog.Close()
		return nil, inputerr.Wrap(fmt.Errorf("%s: %w", configPath, err))
	}
	sh := opts.Shadow
	if sh == nil {
		return func() { opts.QueryLog.Close() }, nil
	}
	sh.Diff = sc.ShadowDiff
	go func() {
		if err := sh.Engine.Build(ctx); err != nil {
			log.Error("shadow engine not built: searches are not shadowed", "err", err)
			return
		}
		log.Info("shadowing searches", "config", cfg.Shadow.Config, "percent", sh.Percent)
	}()
	return func() { sh.Engine.Close(); opts.QueryLog.Close() }, nil
}
