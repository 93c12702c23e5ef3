package main

import (
	"context"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/ui"
)

// defaultUIListen is tune ui's address: loopback only.
const defaultUIListen = "127.0.0.1:7700"

var uiSpec = cli.Spec{Name: "ui", Usage: usage("ui"), Args: cli.NoArgs, Flags: []cli.Flag{configFlag, runsDirFlag, datasetIDFlag, labelsFlag,
	cli.String("listen", defaultUIListen, "listen `address` (port 0 picks a free port)"),
	cli.String("ready-file", "", "write the bound address to this `file` once serving"),
	cli.String("pool", "", "judge this pool `file` (tune judge pool --out FILE) at /judge/pool")}}

func runUI(ctx context.Context, a *app, args []string) error {
	fs, err := a.parse(uiSpec, args)
	if err != nil {
		return err
	}
	listen := fs.Str("listen")
	if msg := engine.CheckListen(listen); msg != "" {
		return usageErrorf("ui: --listen: %s", msg)
	}
	s, err := a.settingsOf(fs)
	if err != nil {
		return err
	}
	store, err := a.openStore(s.RunsDir)
	if err != nil {
		return err
	}
	o, err := s.UIOptions(store, fs.Str("pool"), a.secrets, a.stderr)
	if err != nil {
		return err
	}
	return failedError(ui.ListenAndServe(ctx, o, listen, fs.Str("ready-file"), a.stderr))
}
