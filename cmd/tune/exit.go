package main

import "github.com/fusiontune/fusiontune/cmd/tune/internal/cli"

// The exit codes errors carry (cli.Code reads them once, in run): 0 ok,
// 1 a run or gate failed, 2 usage or input error, 3 a sweep finished with
// failed trials.

func usageErrorf(format string, args ...any) error { return cli.UsageErrorf(format, args...) }
func inputError(err error) error                   { return cli.InputError(err) }
func failedError(err error) error                  { return cli.FailedError(err) }
func partialError(err error) error                 { return cli.PartialError(err) }
