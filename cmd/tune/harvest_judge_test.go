package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarvestJudgeWritesPool: --judge pools the added queries' logged
// answers; a second harvest whose pool file exists is refused (exit 2)
// before anything is written; bad pool flags are usage errors.
func TestHarvestJudgeWritesPool(t *testing.T) {
	dir := t.TempDir()
	log, err := filepath.Abs("testdata/harvest/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runTune(t, dir, "harvest", "--out", "h.json", "--judge", "--labels", "labels.db", log)
	if code != 0 || !strings.Contains(stdout, "pooled the logged answers of the 2 added queries (depth 10) into h.pool.jsonl") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	pool, err := os.ReadFile(filepath.Join(dir, "h.pool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// frozen pipe: d1 and d2 shown by two searches, d3 by one; refund: d9.
	if n := bytes.Count(pool, []byte("\n")); n != 4 || !bytes.Contains(pool, []byte(`"doc":"d1","priority":1.5,"trials":2,"best_rank":1`)) {
		t.Errorf("pool (%d lines):\n%s", n, pool)
	}
	golden, _ := os.ReadFile(filepath.Join(dir, "h.json"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--update", "--judge"}, "h.pool.jsonl exists"},
		{[]string{"--pool", "p.jsonl"}, "--pool needs --judge"},
		{[]string{"--judge", "--pool-depth", "0"}, "--pool-depth: want an integer in [1, 1000] (got 0)"},
	} {
		args := append(append([]string{"harvest", "--out", "h.json", "--labels", "labels.db"}, tc.args...), log)
		_, stderr, code := runTune(t, dir, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, "h.json")); !bytes.Equal(now, golden) {
			t.Errorf("%v: the golden set was rewritten", tc.args)
		}
	}
}
