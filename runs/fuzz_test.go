package runs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// FuzzRunFiles feeds arbitrary bytes to every reader of a run directory
// (manifest, trial record, per-query results, leaderboard, lock holder):
// each returns an error or a value, never panics, and a lock file with any
// content can still be taken.
func FuzzRunFiles(f *testing.F) {
	f.Add([]byte(`{"id":"x","status":"running","trials":3}`))
	f.Add([]byte(`{"index":1,"name":"k=20","status":"ok","primary":0.5,"scorecard":{"NDCG@10":0.4}}`))
	f.Add([]byte("{\"query_id\":\"q1\",\"top\":[{\"doc_id\":\"d\",\"grade\":3}]}\n{\"query_id\":\"q2\"}\n"))
	f.Add([]byte(`{"trials":[{"name":"a","primary":1}]}`))
	f.Add([]byte(`{"pid":123,"started":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		run := filepath.Join(dir, "run")
		if err := os.MkdirAll(filepath.Join(run, runs.TrialsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{runs.ManifestFile, runs.LeaderboardJSONFile, filepath.Join(runs.TrialsDir, "000.json"), filepath.Join(runs.TrialsDir, "000.queries.jsonl")} {
			if err := os.WriteFile(filepath.Join(run, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r, err := runs.Load(run)
		if err != nil {
			r = &runs.Run{Dir: run}
		}
		r.Trials()
		r.QueryResults(0)
		r.ReadLeaderboard()
		lock := filepath.Join(dir, runs.LockFile)
		if err := os.WriteFile(lock, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := runs.Acquire(lock, "fuzz", nil)
		if err != nil {
			t.Fatalf("lock with content %q not taken: %v", data, err)
		}
		l.Release()
	})
}
