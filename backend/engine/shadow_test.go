package engine

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/querylog"
)

// TestServerLiveShadow: with a shadow engine at 100%, every answered
// search over real HTTP is followed by the shadow's answer in the query
// log, with its diff: identical for the same config, not for RRF k 1; a
// shadow config is checked, and may not log or shadow itself.
func TestServerLiveShadow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		k         string
		identical bool
	}{{"same config", "60", true}, {"rrf k 1", "1", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			abs, _ := filepath.Abs("testdata/tiny/corpus.jsonl")
			shadowFile := filepath.Join(dir, "shadow.yaml")
			os.WriteFile(shadowFile, []byte("corpus: {path: "+abs+"}\nretrievers: [bm25, dense]\ndense: {model: hash-64}\nfusion: {method: rrf, k: "+tc.k+"}\ndepth: 50\ncache_dir: "+dir+"/cache\n"), 0o644)
			main, _ := LoadConfig("testdata/tiny.yaml")
			main.Shadow = &ShadowConfig{Config: shadowFile, Percent: 100}
			main.Log = &LogConfig{Path: filepath.Join(dir, "q.jsonl")}
			sh, err := LoadShadow(main, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sh.Engine.Close() })
			sh.Diff = classDiff
			if err := sh.Engine.Build(context.Background()); err != nil {
				t.Fatal(err)
			}
			w, err := querylog.Open(main.Log.Path, querylog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, url := limitsServer(t, ServerOptions{QueryLog: w, Shadow: sh})
			queries := []string{"telescope mirror", "moon phases", "light pollution in cities", "exoplanet orbit", "star colour temperature"}
			for _, q := range queries {
				resp, err := http.Post(url+"/search", "application/json", strings.NewReader(`{"query": "`+q+`", "k": 5}`))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				for deadline := time.Now().Add(10 * time.Second); sh.busy.Load() && time.Now().Before(deadline); {
					time.Sleep(5 * time.Millisecond)
				}
			}
			w.Close()
			log, err := querylog.Read([]string{main.Log.Path}, querylog.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(log.Shadows) != len(queries) || sh.Skipped.Load() != 0 {
				t.Fatalf("%d shadow events for %d searches (%d skipped)", len(log.Shadows), len(queries), sh.Skipped.Load())
			}
			identical := 0
			for i, e := range log.Shadows {
				if e.RequestID != log.Searches[i].RequestID || e.Config == log.Searches[i].Config && !tc.identical {
					t.Errorf("shadow %d: %+v", i, e)
				}
				if e.Diff.Class == "identical" {
					identical++
				}
			}
			if tc.identical && identical != len(queries) || !tc.identical && identical == len(queries) {
				t.Errorf("%d of %d identical", identical, len(queries))
			}
		})
	}
	nested, _ := LoadConfig("testdata/tiny.yaml")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("corpus: {path: x.jsonl}\nlog: {path: other.jsonl}\n"), 0o644)
	nested.Shadow = &ShadowConfig{Config: bad, Percent: 5}
	if _, err := LoadShadow(nested, Options{}); err == nil || !strings.Contains(err.Error(), "may not set log or shadow") {
		t.Errorf("nested: %v", err)
	}
	_, err := ParseConfig([]byte("corpus: {path: c.jsonl}\nshadow: {config: s.yaml, percent: 0}\n"), filepath.Join(dir, "e.yaml"), dir)
	for _, want := range []string{"shadow.percent: must be a number in (0, 100] (got 0)", "shadow: needs log.path"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// classDiff is a Shadow.Diff for tests: the class of the two lists alone
// (tune serve passes metrics/stats' full comparison).
func classDiff(served, shadow []string, _ int) querylog.Diff {
	switch {
	case slices.Equal(served, shadow):
		return querylog.Diff{Class: "identical"}
	case len(served) == len(shadow) && slices.Equal(slices.Sorted(slices.Values(served)), slices.Sorted(slices.Values(shadow))):
		return querylog.Diff{Class: "minor"}
	}
	return querylog.Diff{Class: "major"}
}
