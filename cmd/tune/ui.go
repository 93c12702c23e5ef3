package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/cli"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/ui"
	"github.com/fusiontune/fusiontune/tuner"
)

// defaultUIListen is tune ui's address: loopback only.
const defaultUIListen = "127.0.0.1:7700"

const uiUsage = `[--listen 127.0.0.1:7700] [--pool FILE] [--ready-file PATH] [--config tune.yaml] [--runs-dir DIR]

Serves the evaluation web app over the runs directory, the settings'
dataset (every query), the configured backend (the query microscope runs
queries live with explain) and the label store (the judge page writes
people's labels to it). Loopback by default: the app has no
authentication, so listening beyond this machine is warned about. With
--pool (a file tune judge pool wrote) the judge page at /judge/pool offers
the pool's pairs to label, with the pool's coverage.`

var uiSpec = cli.Spec{Name: "ui", Usage: uiUsage, Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag, labelsFlag,
	cli.String("listen", defaultUIListen, "listen `address` (port 0 picks a free port)"),
	cli.String("ready-file", "", "write the bound address to this `file` once serving"),
	cli.String("pool", "", "judge this pool `file` (tune judge pool --out FILE) at /judge/pool")}}

func runUI(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(uiSpec, args)
	if err != nil {
		return err
	}
	listen, readyFile := fs.Str("listen"), fs.Str("ready-file")
	if fs.NArg() > 0 {
		return usageErrorf("ui: unexpected arguments %q", fs.Args())
	}
	if msg := engine.CheckListen(listen); msg != "" {
		return usageErrorf("ui: --listen: %s", msg)
	}
	s, err := settingsOf(fs)
	if err != nil {
		return err
	}
	o, err := a.uiOptions(s, fs.Str("pool"))
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "tune-ui-*")
	if err != nil {
		return failedError(err)
	}
	defer os.RemoveAll(scratch)
	o.BackendDir = filepath.Join(scratch, "backend")
	if host, _, err := net.SplitHostPort(listen); err == nil {
		ip := net.ParseIP(host)
		o.LoopbackOnly = host == "localhost" || (ip != nil && ip.IsLoopback())
	}
	srv, err := ui.New(o)
	if err != nil {
		return failedError(err)
	}
	defer srv.Close()
	return a.serveUI(ctx, srv, listen, readyFile, o.Log)
}

// uiOptions opens what the web app serves: the runs, the dataset (every
// query, the label store's labels merged), the scorer, the backend, the
// corpus's documents (read once) and the pool file to judge ("" none).
func (a *app) uiOptions(s *settings, pool string) (ui.Options, error) {
	var o ui.Options
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return o, err
	}
	d := s.Dataset
	d.Split = experiments.SplitAll // the microscope and judge pages offer every query
	ds, err := tuner.OpenDataset(d, s.EngineCorpusPath(), userCachePath(""))
	if err != nil {
		return o, runError(err)
	}
	if err := a.mergeStoreLabels(s, ds); err != nil {
		return o, err
	}
	scorer, err := s.Score.Scorer(ds.Golden.Scale)
	if err != nil {
		return o, inputError(err)
	}
	f, err := a.newFactory(s, ds.Corpus)
	if err != nil {
		return o, inputError(err)
	}
	o = ui.Options{Store: store, Dataset: ds, Scorer: scorer, K: s.Eval.K, Backend: f, Labels: s.JudgeStoreURL(),
		Compare: func(seed int64) tuner.CompareOptions { return tuner.CompareOptions{Stats: s.StatsOptions(seed)} },
		Log:     slog.New(slog.NewTextHandler(a.stderr, nil))}
	docs, err := ds.JudgeDocs()
	if err != nil {
		return o, inputError(err)
	}
	if docs != nil {
		o.Docs = ui.DocsOf(docs)
	}
	if o.PoolFile = pool; pool != "" {
		if o.Pool, err = ds.PoolPairsWith(pool, ds.DatasetID(), docs); err != nil {
			return o, runError(err)
		}
	}
	return o, nil
}

// serveUI serves h on addr until ctx ends, warning when the address is
// not loopback.
func (a *app) serveUI(ctx context.Context, h http.Handler, addr, readyFile string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failedError(fmt.Errorf("ui: %w", err))
	}
	bound := ln.Addr().String()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond this machine: the web app has no authentication and writes labels", "addr", bound)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintf(a.stderr, "tune ui: listening on http://%s\n", bound)
	if readyFile != "" {
		if err := atomicfile.Replace(readyFile, []byte(bound+"\n"), 0o600); err != nil {
			hs.Close()
			return failedError(fmt.Errorf("ready file: %w", err))
		}
	}
	select {
	case err := <-done:
		return failedError(err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return failedError(err)
	}
	return nil
}
