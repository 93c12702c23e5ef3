package judging_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/harvest"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// TestHarvestWritesPool: with Judge the harvest pools the added queries'
// logged answers; a second harvest whose pool file exists, and a pool
// file without Judge, are input errors before anything is written.
func TestHarvestWritesPool(t *testing.T) {
	dir := t.TempDir()
	log, err := filepath.Abs("testdata/harvest_queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	scale := experiments.DefaultScale()
	req := func(update, judge bool, poolFile string) judging.HarvestRequest {
		c := harvest.Config{Logs: []string{log}, Out: "h.json", Update: update, Read: querylog.ReadOptions{},
			Sample: harvest.Options{Method: harvest.SampleRandom, N: 200, Seed: 1},
			Clicks: harvest.ClickOptions{MinExpected: harvest.DefaultMinExpected, Relevant: scale.Relevant, Strong: scale.Strong, Exact: scale.Exact}}
		return judging.HarvestRequest{Config: c, StoreURL: "labels.db", Judge: judge, Pool: poolFile, PoolDepth: pool.DefaultDepth}
	}
	var stdout, stderr bytes.Buffer
	if err := judging.Harvest(context.Background(), req(false, true, ""), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "pooled the logged answers of the 2 added queries (depth 10) into h.pool.jsonl") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	pooled, err := os.ReadFile(filepath.Join(dir, "h.pool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// frozen pipe: d1 and d2 shown by two searches, d3 by one; refund: d9.
	if n := bytes.Count(pooled, []byte("\n")); n != 4 || !bytes.Contains(pooled, []byte(`"doc":"d1","priority":1.5,"trials":2,"best_rank":1`)) {
		t.Errorf("pool (%d lines):\n%s", n, pooled)
	}
	golden, _ := os.ReadFile(filepath.Join(dir, "h.json"))
	for _, tc := range []struct {
		name string
		r    judging.HarvestRequest
		want string
	}{
		{"pool exists", req(true, true, ""), "h.pool.jsonl exists"},
		{"pool without judge", req(false, false, "p.jsonl"), "--pool needs --judge"},
	} {
		err := judging.Harvest(context.Background(), tc.r, &bytes.Buffer{}, &bytes.Buffer{})
		var ie *inputerr.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v; want an input error containing %q", tc.name, err, tc.want)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, "h.json")); !bytes.Equal(now, golden) {
			t.Errorf("%s: the golden set was rewritten", tc.name)
		}
	}
}
