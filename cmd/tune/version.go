package main

import (
	"context"
	"fmt"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"runtime/debug"
)

func runVersion(ctx context.Context, a *app, args []string) error {
	if _, err := a.parse(cli.Spec{Name: "version"}, args); err != nil {
		return err
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(a.stdout, "tune %s\n", v)
	return nil
}
