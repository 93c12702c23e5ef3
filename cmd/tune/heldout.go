package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"encoding/json"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// heldOutFile holds the held-out split's per-query results in the run.
const heldOutFile = "heldout.queries.jsonl"

// heldOutStep gives the held-out estimate: when the sweep tuned on the dev
// split, the best trial is evaluated on the test split (the same seed and
// fraction) on the still-running backend b. It returns nil otherwise.
func heldOutStep(ctx context.Context, s *settings, run *runs.Run, b backend.Backend, scorer tuner.Scorer, stderr io.Writer) (*runs.HeldOut, error) {
	if s.Dataset.Split != experiments.SplitDev {
		return nil, nil
	}
	recs, err := run.Trials()
	if err != nil {
		return nil, err
	}
	best, ok := runs.NewLeaderboard("", nil, recs).Best()
	if !ok {
		return nil, nil
	}
	test := *s
	test.Dataset.Split = experiments.SplitTest
	ds, err := openDataset(&test)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "held-out estimate: %s on the %d queries of the test split\n", best.Name, len(ds.queries))
	h, results, err := tuner.HeldOut(ctx, b, best.Name, best.Params, best.Primary, ds.queries, scorer, evalOptions(s.Eval))
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	if err := run.WriteFile(heldOutFile, []byte(out.String())); err != nil {
		return nil, err
	}
	return h, nil
}
