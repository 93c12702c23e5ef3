package main

import (
	"context"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

func runWorker(ctx context.Context, a *app, args []string) error {
	return a.sweep(ctx, "worker", args)
}

// sharedFlagSpecs are the flags of a sweep on a shared study.
var sharedFlagSpecs = []cli.Flag{
	cli.String("storage", "", "keep the sampler study in this database (sqlite:///PATH, postgres://..., mysql://...) shared with other workers"),
	cli.String("study", "", "name of the study in --storage (default "+sampler.DefaultStudyName+")"),
	cli.String("worker", "", "this worker's name among the study's workers (default HOST-PID)"),
	cli.Int("parallel", 1, "backend replicas run side by side in this process, each on its own trials").Min(1),
	cli.Duration("heartbeat", studystore.DefaultHeartbeatInterval, "how often a running trial's heartbeat is renewed"),
	cli.Duration("heartbeat-timeout", studystore.DefaultHeartbeatTimeout, "a running trial without a heartbeat for this long is failed by the other workers"),
}

// sharedRequestOf is the shared study the flags name.
func sharedRequestOf(fs *cli.Parsed) tuner.SharedRequest {
	return tuner.SharedRequest{Storage: fs.Str("storage"), Study: fs.Str("study"), Worker: fs.Str("worker"), Parallel: fs.Int("parallel"),
		Beat: fs.Duration("heartbeat"), Timeout: fs.Duration("heartbeat-timeout")}
}
