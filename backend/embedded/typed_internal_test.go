package embedded

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
)

// renderParseCheck is Factory.Check as it was before the typed overlay:
// every trial's config rendered to YAML and parsed back, then the
// embedder spec checked.
func renderParseCheck(f *Factory, params map[string]any) error {
	data, err := f.render(params)
	var cfg engine.Config
	if err == nil {
		cfg, err = engine.ParseConfig(data, "trial config", "/")
	}
	if err == nil && cfg.Has(engine.Dense) && cfg.Dense.Model[:min(7, len(cfg.Dense.Model))] != "openai:" {
		if _, eerr := embed.New(cfg.Dense.Model, embed.Options{}); eerr != nil {
			err = fmt.Errorf("dense.model %q: %w", cfg.Dense.Model, eerr)
		}
	}
	if err != nil {
		return fmt.Errorf("engine config: %w", err)
	}
	return nil
}

func testFactory(t testing.TB) *Factory {
	t.Helper()
	f, err := New(Options{ConfigFile: "testdata/engine.yaml", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// sameAsRenderParse checks that Check decides params as render-then-parse
// does, with the same message, and that Config is the parsed config; it
// returns whether the typed overlay gave the config (else the rendered
// file decided).
func sameAsRenderParse(t *testing.T, f *Factory, params map[string]any) bool {
	t.Helper()
	got, want := errText(f.Check(params)), errText(renderParseCheck(f, params))
	if got != want {
		t.Errorf("%v: Check %q, render+parse %q", params, got, want)
	}
	cfg, err := f.Config(params)
	wantCfg, wantErr := f.parsed(params)
	if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(cfg, wantCfg)) {
		t.Errorf("%v: Config\n%+v, %v\nrender+parse\n%+v, %v", params, cfg, err, wantCfg, wantErr)
	}
	_, terr := f.typed(params)
	return terr == nil
}

// TestCheckIsRenderParse: Check and Config, which overlay a trial's
// parameters on the parsed base config as typed values, accept and refuse
// exactly the trials rendering the YAML and parsing it did, with the same
// messages (unknown keys, wrong types, out-of-range values, custom.*
// keys, chunking, dense models, and the corners where YAML is laxer than
// the typed overlay, which then falls back to the file); the typed
// overlay decides every well-formed trial itself.
func TestCheckIsRenderParse(t *testing.T) {
	f := testFactory(t)
	tests := []struct {
		name   string
		params map[string]any
		typed  bool // the typed overlay gives the config (else the rendered file decides)
	}{
		{"no params", nil, true},
		{"fusion", map[string]any{"fusion.method": "linear", "fusion.normalization": "z_score", "fusion.weights.bm25": 0.7, "fusion.weights.dense": 0.3}, true},
		{"rrf k as an int", map[string]any{"fusion.k": 10}, true},
		{"depth and thresholds", map[string]any{"fusion.method": "combmnz", "depth": 50.0, "min_score": 0.02, "bm25.min_score": 1.0, "dense.min_score": -0.0}, true},
		{"fusion.depth equal to depth", map[string]any{"fusion.depth": 50.0, "depth": 50.0}, true},
		{"one retriever, a weight kept for the other", map[string]any{"retrievers": []any{"bm25"}, "fusion.weights.dense": 0.4}, true},
		{"retrievers as []string", map[string]any{"retrievers": []string{"dense", "bm25"}}, true},
		{"custom keys", map[string]any{"custom.note": "x", "custom.map": map[string]any{"a": 1.0}, "custom.list": []any{1.0, "y"}}, true},
		{"chunking", map[string]any{"chunk.size": 200.0, "chunk.overlap": 50.0}, true},
		{"whole documents", map[string]any{"chunk.size": 0.0, "chunk.overlap": 0.0}, true},
		{"bm25", map[string]any{"bm25.k1": 1.2, "bm25.b": 0.75}, true},
		{"passage", map[string]any{"passage": true}, true},
		{"dense model", map[string]any{"dense.model": "lsa-64"}, true},
		{"openai model, checked by the service", map[string]any{"dense.model": "openai:text-embedding-3-small"}, true},
		{"the largest k", map[string]any{"fusion.k": 1e6}, true},
		{"k zero is the default's", map[string]any{"fusion.k": 0.0}, true},
		// Refused by both, with the same words.
		{"unknown key", map[string]any{"fusion.kk": 10.0}, false},
		{"unknown top-level key", map[string]any{"nosuch": 1.0}, false},
		{"a weaviate parameter", map[string]any{"alpha": 0.5}, false},
		{"k not a number", map[string]any{"fusion.k": "sixty"}, false},
		{"k a boolean", map[string]any{"fusion.k": true}, false},
		{"chunk size a string", map[string]any{"chunk.size": "200"}, false},
		{"retrievers a string", map[string]any{"retrievers": "bm25"}, false},
		{"retrievers holding a number", map[string]any{"retrievers": []any{1.0}}, false},
		{"passage a string", map[string]any{"passage": "yes"}, false},
		{"k negative", map[string]any{"fusion.k": -1.0}, false},
		{"k too large", map[string]any{"fusion.k": 2e6}, false},
		{"k NaN", map[string]any{"fusion.k": math.NaN()}, false},
		{"b above 1", map[string]any{"bm25.b": 2.0}, false},
		{"k1 above 10", map[string]any{"bm25.k1": 11.0}, false},
		{"negative chunk", map[string]any{"chunk.size": -1.0}, false},
		{"overlap not below size", map[string]any{"chunk.size": 50.0, "chunk.overlap": 50.0}, false},
		{"overlap for whole documents", map[string]any{"chunk.size": 0.0, "chunk.overlap": 10.0}, false},
		{"depth too large", map[string]any{"depth": 20000.0}, false},
		{"depth negative", map[string]any{"depth": -1.0}, false},
		{"depth conflicts with fusion.depth", map[string]any{"depth": 50.0, "fusion.depth": 40.0}, false},
		{"weight of no retriever", map[string]any{"fusion.weights.sparse": 0.5}, false},
		{"negative weight", map[string]any{"fusion.weights.bm25": -1.0}, false},
		{"unknown method", map[string]any{"fusion.method": "best"}, false},
		{"unknown normalization", map[string]any{"fusion.normalization": "x"}, false},
		{"no retrievers", map[string]any{"retrievers": []any{}}, false},
		{"a retriever twice", map[string]any{"retrievers": []any{"bm25", "bm25"}}, false},
		{"unknown retriever", map[string]any{"retrievers": []any{"bm25", "sparse"}}, false},
		{"several problems", map[string]any{"fusion.k": -1.0, "bm25.b": 2.0, "chunk.size": -5.0}, false},
		// The typed config is valid, the embedder spec is not.
		{"unknown embedder", map[string]any{"dense.model": "nosuch-7"}, true},
		{"embedder dimension", map[string]any{"dense.model": "hash-0"}, true},
		{"relative vector file, resolved against /", map[string]any{"dense.model": "file:vectors.jsonl"}, true},
		{"no dense model", map[string]any{"dense.model": ""}, false},
		{"dense model a number", map[string]any{"dense.model": 5.0}, false},
		{"a parameter under a leaf", map[string]any{"fusion": "x", "fusion.k": 1.0}, false},
		// YAML is laxer than the typed overlay here (experiment files
		// refuse all of these): the rendered file decides, as before.
		{"null keeps the default", map[string]any{"fusion.k": nil}, false},
		{"a fractional integer is truncated", map[string]any{"chunk.size": 100.5}, false},
		{"a number for a string setting", map[string]any{"fusion.method": 5.0}, false},
		{"a weights object", map[string]any{"fusion.weights": map[string]any{"bm25": 0.5}}, false},
		{"an engine key that is no parameter", map[string]any{"dense.base_url": "http://127.0.0.1:1/v1"}, false},
		{"not UTF-8", map[string]any{"dense.model": "openai:\xff\x01"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if typed := sameAsRenderParse(t, f, tt.params); typed != tt.typed {
				t.Errorf("decided by the typed overlay: %v, want %v", typed, tt.typed)
			}
		})
	}
}

// TestShippedTrialsTyped: every trial of the shipped experiment files and
// the study space's corners is decided by the typed overlay, as
// render-then-parse decides it, and Check renders no YAML for them.
func TestShippedTrialsTyped(t *testing.T) {
	f := testFactory(t)
	renders := 0
	render := f.render
	f.render = func(p map[string]any) ([]byte, error) { renders++; return render(p) }
	files, _ := filepath.Glob("../../experiments/*.json")
	yamls, _ := filepath.Glob("../../experiments/*.yaml")
	n := 0
	for _, path := range append(files, yamls...) {
		ef, err := experiments.LoadExperimentFile(path)
		if err != nil {
			t.Fatal(err)
		}
		trials, _, err := ef.Expand()
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trials {
			n++
			before := renders
			if err := f.Check(tr.Params); err != nil {
				t.Errorf("%s: %s: %v", path, tr.Name, err)
			}
			if renders != before {
				t.Errorf("%s: %s: Check rendered the config", path, tr.Name)
			}
			if !sameAsRenderParse(t, f, tr.Params) {
				t.Errorf("%s: %s: not decided by the typed overlay", path, tr.Name)
			}
		}
	}
	if n < 80 {
		t.Fatalf("%d shipped trials: the experiment files moved?", n)
	}
}

// FuzzCheckIsRenderParse: for any value of any parameter, alone or beside
// a second one, Check says what render-then-parse says.
func FuzzCheckIsRenderParse(f *testing.F) {
	names := append(engine.ParamNames()[:len(engine.ParamNames())-1], "fusion.weights.bm25", "fusion.weights.x", "custom.c", "dense.base_url", "nosuch", "fusion")
	f.Add(uint8(0), uint8(0), 60.0, "rrf", false)
	f.Add(uint8(3), uint8(1), 100.5, "hash-64", true)
	f.Add(uint8(9), uint8(2), -1.0, "file:x", false)
	f.Add(uint8(12), uint8(3), 0.0, "bm25", true)
	f.Add(uint8(5), uint8(4), 1e300, "\n", false)
	fac := testFactory(f)
	f.Fuzz(func(t *testing.T, key, kind uint8, num float64, str string, flag bool) {
		values := []any{num, str, flag, []any{str, "dense"}, nil, int(num) % 1000, []string{str}}
		params := map[string]any{names[int(key)%len(names)]: values[int(kind)%len(values)]}
		if flag {
			params[names[int(key/7)%len(names)]] = values[int(kind/7)%len(values)]
		}
		if math.IsNaN(num) {
			return // reflect.DeepEqual cannot compare configs holding NaN
		}
		sameAsRenderParse(t, fac, params)
	})
}
