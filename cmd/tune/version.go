package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintf(stdout, "tune %s\n", v)
	return nil
}
