package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

func runVersion(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("version", "", a.stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(a.stdout, "tune %s\n", v)
	return nil
}
