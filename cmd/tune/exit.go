package main

import "github.com/fusiontune/fusiontune/internal/cli"

// The exit codes errors carry (cli.Code reads them once, in run): 0 ok,
// 1 a run or gate failed, 2 usage or input error, 3 a sweep finished with
// failed trials.
var (
	usageErrorf  = cli.UsageErrorf
	inputError   = cli.InputError
	failedError  = cli.FailedError
	partialError = cli.PartialError
)
