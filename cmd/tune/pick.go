package main

import "github.com/fusiontune/fusiontune/cmd/tune/internal/cli"

// pickUsage says how every command reads a RUN and a TRIAL (resolved by
// runs.Store.Resolve and runs.Leaderboard.Pick).
var pickUsage = usage("pick")

// The positional arguments of the commands reading a recorded run.
var (
	atMostOneRun = cli.ArgRange(0, 1, "at most one RUN")
	runAndTrial  = cli.ArgRange(1, 2, "RUN and optionally TRIAL")
)
