package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/experiments/harvest"
	"github.com/fusiontune/fusiontune/internal/cli"
	"github.com/fusiontune/fusiontune/tuner/judging"
)

// harvestPoolFile is the pool file --judge writes ("" without --judge):
// --pool, else --out's name with .pool.jsonl. An existing file is
// refused before anything is written.
func harvestPoolFile(fs *cli.Parsed) (string, error) {
	if !fs.Bool("judge") {
		if fs.Given("pool") {
			return "", usageErrorf("harvest: --pool needs --judge")
		}
		return "", nil
	}
	f := fs.Str("pool")
	if f == "" {
		out := fs.Str("out")
		f = strings.TrimSuffix(out, ".json") + ".pool.jsonl"
	}
	if _, err := os.Stat(f); err == nil {
		return "", inputError(fmt.Errorf("harvest: pool file %s exists: give --pool a new file (a pool is not overwritten)", f))
	}
	return f, nil
}

// harvestPool writes the judging pool of the queries the harvest added
// and says how to judge it.
func (a *app) harvestPool(ctx context.Context, r *harvest.Result, url, dataset, file string, depth int) error {
	p, err := judging.HarvestPool(ctx, r, url, dataset, depth)
	if err != nil {
		return err
	}
	if err := a.writeJudgePool(p, file, "text"); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, judging.HarvestNext(len(r.Sampled), depth, file, dataset))
	return nil
}
