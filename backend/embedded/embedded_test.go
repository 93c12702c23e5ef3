package embedded_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/backendtest"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

func newFactory(t *testing.T, o embedded.Options) *embedded.Factory {
	t.Helper()
	if o.CacheDir == "" {
		o.CacheDir = t.TempDir()
	}
	f, err := embedded.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestNewRefuses: a bad base config is one error naming the setting, before
// any trial; a secret written into the config is refused.
func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		o    embedded.Options
		want string
	}{
		{"unreadable file", embedded.Options{ConfigFile: "testdata"}, "backend.config"},
		{"literal key", embedded.Options{Engine: map[string]any{"dense": map[string]any{"api_key": "sk-123"}}}, "backend.engine dense.api_key: secrets are read only from environment variables"},
		{"password in a URL", embedded.Options{Engine: map[string]any{"dense": map[string]any{"base_url": "http://u:pw@host/v1"}}}, "a URL with a password"},
		{"bad engine key", embedded.Options{Engine: map[string]any{"fusion": map[string]any{"method": "best"}}}, "backend.config + backend.engine: engine config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.CacheDir = t.TempDir()
			_, err := embedded.New(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestFusionIsTheRenderedConfigs: the typed overlay the replay resolves a
// trial's fusion settings with gives what `tune serve` reads from the
// rendered config file.
func TestFusionIsTheRenderedConfigs(t *testing.T) {
	f := newFactory(t, embedded.Options{ConfigFile: "testdata/engine.yaml", Engine: map[string]any{"fusion": map[string]any{"k": 40}}})
	for _, params := range []map[string]any{
		nil,
		{"fusion.k": 10.0},
		{"fusion.method": "linear", "fusion.normalization": "z_score", "fusion.weights.bm25": 0.7},
		{"fusion.method": "combmnz", "depth": 50.0, "min_score": 0.02},
		{"retrievers": []any{"bm25"}, "custom.ignored": "x"},
	} {
		got, err := f.Fusion(params)
		if err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		cfg, err := f.Config(params)
		if err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		if want := cfg.FusionSettings(); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: typed overlay %+v, rendered config %+v", params, got, want)
		}
	}
	if _, err := f.Fusion(map[string]any{"fusion.k": "sixty"}); err == nil || !strings.Contains(err.Error(), "fusion.k") {
		t.Errorf("a bad value: %v, want an error naming fusion.k", err)
	}
}

// TestPathsAndReplica: relative paths in the config file resolve against
// its directory; a replica keeps its cache in its own directory and
// otherwise runs the same config.
func TestPathsAndReplica(t *testing.T) {
	f := newFactory(t, embedded.Options{ConfigFile: "testdata/engine.yaml"})
	abs, _ := filepath.Abs("testdata/corpus.jsonl")
	m, err := render.ReadYAMLMap([]byte(f.Describe(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got := m["corpus"].(map[string]any)["path"]; got != abs {
		t.Errorf("corpus.path = %v, want %s", got, abs)
	}
	dir := t.TempDir()
	r := f.Replica(dir)
	rm, err := render.ReadYAMLMap([]byte(r.Describe(map[string]any{"fusion.k": 5.0})))
	if err != nil {
		t.Fatal(err)
	}
	if got := rm["cache_dir"]; got != filepath.Join(dir, "cache") {
		t.Errorf("replica cache_dir = %v, want %s", got, filepath.Join(dir, "cache"))
	}
	if err := r.Check(map[string]any{"fusion.k": 5.0}); err != nil {
		t.Errorf("replica Check: %v", err)
	}
	if err := f.Check(map[string]any{"dense.model": "nosuch-7"}); err == nil || !strings.Contains(err.Error(), `engine config: dense.model "nosuch-7": `) {
		t.Errorf("unknown embedder: %v", err)
	}
}

// TestShippedExperimentsCheck: every trial of the experiment files the
// project ships (and the corners of the shipped study's space) is a config
// the embedded engine accepts, so `tune --experiments experiments/X` never
// stops at its own examples.
func TestShippedExperimentsCheck(t *testing.T) {
	f := newFactory(t, embedded.Options{ConfigFile: "testdata/engine.yaml"})
	files, _ := filepath.Glob("../../experiments/*.json")
	yamls, _ := filepath.Glob("../../experiments/*.yaml")
	files = append(files, yamls...)
	if len(files) < 3 {
		t.Fatalf("shipped experiment files: %v", files)
	}
	for _, path := range files {
		ef, err := experiments.LoadExperimentFile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		trials, _, err := ef.Expand()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(ef.Space) > 0 {
			trials = append(trials, sampler.OptionsFor(ef).Corners()...)
		}
		for _, tr := range trials {
			if err := f.Check(tr.Params); err != nil {
				t.Errorf("%s: trial %q: %v", filepath.Base(path), tr.Name, err)
			}
		}
	}
}

// TestFingerprint: trials whose chunk settings cut the corpus alike (every
// size above its longest document, 5 words) and whose other settings are
// equal, defaults applied, share a fingerprint; any difference in the
// chunks or in another setting gives another.
func TestFingerprint(t *testing.T) {
	f := newFactory(t, embedded.Options{ConfigFile: "testdata/engine.yaml"})
	fp := func(params map[string]any) string {
		t.Helper()
		k, err := f.Fingerprint(params)
		if err != nil {
			t.Fatalf("%v: %v", params, err)
		}
		return k
	}
	tests := []struct {
		name string
		a, b map[string]any
		same bool
	}{
		{"sizes above every document", map[string]any{"chunk.size": 200.0}, map[string]any{"chunk.size": 500.0, "chunk.overlap": 50.0}, true},
		{"a size that cuts documents", map[string]any{"chunk.size": 200.0}, map[string]any{"chunk.size": 3.0}, false},
		{"whole documents vs one chunk each: other chunk ids", map[string]any{"chunk.size": 0.0}, map[string]any{"chunk.size": 200.0}, false},
		{"no chunk.size is the default's", nil, map[string]any{"chunk.size": 0.0, "chunk.overlap": 0.0}, true},
		{"a default written out", map[string]any{"fusion.method": "rrf"}, map[string]any{"fusion.method": "rrf", "fusion.k": 60.0, "bm25.k1": 0.9}, true},
		{"custom parameters do not count", nil, map[string]any{"custom.note": "x"}, true},
		{"a query-time setting counts", map[string]any{"chunk.size": 200.0}, map[string]any{"chunk.size": 500.0, "fusion.k": 40.0}, false},
		{"a floor counts", nil, map[string]any{"bm25.min_score": 1.0}, false},
		{"an index-time setting counts", nil, map[string]any{"bm25.b": 0.75}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fp(tt.a) == fp(tt.b); got != tt.same {
				t.Errorf("same fingerprint %v, want %v", got, tt.same)
			}
		})
	}
	if _, err := f.Fingerprint(map[string]any{"chunk.size": -1.0}); err == nil || !strings.Contains(err.Error(), "chunk.size") {
		t.Errorf("a bad value: %v, want an error naming chunk.size", err)
	}
	// A replica keeps its files elsewhere: the same fingerprints.
	r := f.Replica(t.TempDir()).(*embedded.Factory)
	if k, err := r.Fingerprint(nil); err != nil || k != fp(nil) {
		t.Errorf("replica: %q, %v; want %q", k, err, fp(nil))
	}
}

// TestEffective: a parameter a trial leaves unset takes the engine
// config's value (the settings' own, else the engine's default); a set
// one is the trial's; a setting without a value has none.
func TestEffective(t *testing.T) {
	f := newFactory(t, embedded.Options{ConfigFile: "testdata/engine.yaml"})
	backendtest.CheckEffective(t, f, []backendtest.Effective{
		{Name: "fusion.k", Want: 60.0, OK: true},
		{Params: map[string]any{"fusion.k": 20.0}, Name: "fusion.k", Want: 20.0, OK: true},
		{Name: "chunk.size", Want: 0.0, OK: true},
		{Name: "dense.model", Want: "hash-64", OK: true},
		{Name: "fusion.weights.bm25", Want: 1.0, OK: true},
		{Name: "retrievers", Want: []string{"bm25", "dense"}, OK: true},
		{Params: map[string]any{"retrievers": []string{"bm25"}}, Name: "fusion.weights.dense"},
		{Name: "min_score"},
		{Params: map[string]any{"depth": -1.0}, Name: "fusion.k"},
	})
}
