package treceval_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// TestEvaluatePaths: a qrels and a run file are scored, with warnings for
// an unimplemented measure and a run query without judgments; a missing
// file and an unknown measure are errors; a cancelled context is its own
// error.
func TestEvaluatePaths(t *testing.T) {
	dir := t.TempDir()
	qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.trec")
	if err := os.WriteFile(qrels, []byte("q1 0 d1 1\nq1 0 d2 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(run, []byte("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq9 Q0 d1 1 1.0 t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	res, err := treceval.EvaluatePaths(context.Background(), qrels, run, []string{"P.1"}, 1, false, &warn)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := res.Write(&out, "trec", false); err != nil || !strings.Contains(out.String(), "P_1") {
		t.Errorf("output %q (%v)", out.String(), err)
	}
	if !strings.Contains(warn.String(), "1 run queries have no judgments") {
		t.Errorf("warnings %q", warn.String())
	}
	for _, tc := range []struct{ name, qrels, measure, want string }{
		{"missing qrels", filepath.Join(dir, "none"), "P.1", "none"},
		{"unknown measure", qrels, "nope", "eval: "},
	} {
		if _, err := treceval.EvaluatePaths(context.Background(), tc.qrels, run, []string{tc.measure}, 1, false, &warn); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := treceval.EvaluatePaths(ctx, qrels, run, nil, 1, false, &warn); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
