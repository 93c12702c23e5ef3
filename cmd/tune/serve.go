package main

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/metrics/stats"
)

var serveSpec = cli.Spec{Name: "serve", Usage: "--config engine.yaml [--listen ADDR] [--ready-file PATH] [--max-query-terms N]", Args: cli.NoArgs, Flags: []cli.Flag{
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
	restoreGC := engine.BuildGC(os.Getenv) // GOGC 40 while building (10 while fitting) unless set: a cold build's peak memory
	defer restoreGC()
	return engine.ListenAndServe(ctx, engine.ServeConfig{ConfigPath: fs.Str("config"), Listen: fs.Str("listen"), ReadyFile: fs.Str("ready-file"),
		Verbose: fs.Bool("v"), NoQueryLog: fs.Bool("no-query-log"), MaxQueryTerms: fs.Int("max-query-terms"), Log: a.stderr, OnReady: restoreGC,
		Getenv: os.Getenv, ShadowDiff: shadowDiff})
}

// shadowDiff is the diff of a served list and the shadow engine's that a
// shadow event of the query log carries: metrics/stats' comparison, tau
// left out (null) where it is undefined.
func shadowDiff(served, shadow []string, k int) querylog.Diff {
	ld := stats.DiffLists(served, shadow, k)
	d := querylog.Diff{Class: ld.Class, Jaccard: ld.Jaccard, Top1Changed: ld.Top1Changed}
	if !math.IsNaN(ld.Tau) {
		d.KendallTau = &ld.Tau
	}
	return d
}
