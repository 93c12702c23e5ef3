package embedded

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embed"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/experiments"
)

// renderParse is a trial's engine config rendered and parsed back, as
// `tune serve` reads the file rendered for it.
func renderParse(f *Factory, params map[string]any) (engine.Config, error) {
	data, err := f.render(params)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.ParseConfig(data, "trial config", "/")
}

// renderParseCheck is Factory.Check as it was before the typed overlay:
// every trial's config rendered to YAML and parsed back, then the
// embedder spec checked.
func renderParseCheck(f *Factory, params map[string]any) error {
	cfg, err := renderParse(f, params)
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

// sameAsRenderParse checks that a trial Config (the typed overlay)
// accepts is one render-then-parse accepts alike, giving the same config,
// and that Check then says what it says; a trial Config refuses, Check
// refuses too. It returns whether Config accepted params.
func sameAsRenderParse(t *testing.T, f *Factory, params map[string]any) bool {
	t.Helper()
	cfg, err := f.Config(params)
	want, wantErr := renderParse(f, params)
	if err != nil {
		if f.Check(params) == nil {
			t.Errorf("%v: Config refuses it (%v), Check accepts it", params, err)
		}
		return false
	}
	if wantErr != nil || !reflect.DeepEqual(cfg, want) {
		t.Errorf("%v: Config\n%+v\nrender+parse\n%+v, %v", params, cfg, want, wantErr)
	}
	if got, want := errText(f.Check(params)), errText(renderParseCheck(f, params)); got != want {
		t.Errorf("%v: Check %q, render+parse %q", params, got, want)
	}
	return true
}

// problems lists the problems of a config error, "field: problem" without
// positions, and whether the error is one of Validate's (no YAML decoding
// problem, no unknown key): those are worded alike whichever way the
// config was read.
func problems(err error) ([]string, bool) {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return []string{err.Error()}, false
	}
	out, validate := make([]string, len(ce.Problems)), true
	for i, p := range ce.Problems {
		out[i] = p.Error()
		validate = validate && p.Field != "yaml" && p.Problem != "unknown key"
	}
	slices.Sort(out)
	return out, validate
}

// TestCheckIsRenderParse: Check and Config, which overlay a trial's
// parameters on the parsed base config as typed values, accept exactly the
// well-formed trials rendering the YAML and parsing it accepts, with the
// same config, and refuse the others: out-of-range values with Validate's
// problems in the same words (without the rendered file's positions),
// unknown names and wrong kinds in their own words (custom.* keys,
// chunking, dense models too). In the corners where YAML is laxer they
// refuse what the file might take.
func TestCheckIsRenderParse(t *testing.T) {
	f := testFactory(t)
	const (
		accepted  = iota // the typed overlay accepts it, as the rendered file does
		sameWords        // both refuse it, with Validate's problems in the same words
		ownWords         // both refuse it, each in its own words (a wrong kind, an unknown name)
		lax              // YAML is laxer: the file might take it, the typed overlay refuses it
	)
	tests := []struct {
		name   string
		params map[string]any
		want   int
	}{
		{"no params", nil, accepted},
		{"fusion", map[string]any{"fusion.method": "linear", "fusion.normalization": "z_score", "fusion.weights.bm25": 0.7, "fusion.weights.dense": 0.3}, accepted},
		{"rrf k as an int", map[string]any{"fusion.k": 10}, accepted},
		{"depth and thresholds", map[string]any{"fusion.method": "combmnz", "depth": 50.0, "min_score": 0.02, "bm25.min_score": 1.0, "dense.min_score": -0.0}, accepted},
		{"fusion.depth equal to depth", map[string]any{"fusion.depth": 50.0, "depth": 50.0}, accepted},
		{"one retriever, a weight kept for the other", map[string]any{"retrievers": []any{"bm25"}, "fusion.weights.dense": 0.4}, accepted},
		{"retrievers as []string", map[string]any{"retrievers": []string{"dense", "bm25"}}, accepted},
		{"custom keys", map[string]any{"custom.note": "x", "custom.map": map[string]any{"a": 1.0}, "custom.list": []any{1.0, "y"}}, accepted},
		{"chunking", map[string]any{"chunk.size": 200.0, "chunk.overlap": 50.0}, accepted},
		{"whole documents", map[string]any{"chunk.size": 0.0, "chunk.overlap": 0.0}, accepted},
		{"bm25", map[string]any{"bm25.k1": 1.2, "bm25.b": 0.75}, accepted},
		{"passage", map[string]any{"passage": true}, accepted},
		{"dense model", map[string]any{"dense.model": "lsa-64"}, accepted},
		{"openai model, checked by the service", map[string]any{"dense.model": "openai:text-embedding-3-small"}, accepted},
		{"the largest k", map[string]any{"fusion.k": 1e6}, accepted},
		{"k zero is the default's", map[string]any{"fusion.k": 0.0}, accepted},
		// The typed config is valid, the embedder spec is not.
		{"unknown embedder", map[string]any{"dense.model": "nosuch-7"}, accepted},
		{"embedder dimension", map[string]any{"dense.model": "hash-0"}, accepted},
		{"relative vector file, resolved against /", map[string]any{"dense.model": "file:vectors.jsonl"}, accepted},
		// Refused by both, with the same words.
		{"k negative", map[string]any{"fusion.k": -1.0}, sameWords},
		{"k too large", map[string]any{"fusion.k": 2e6}, sameWords},
		{"k NaN", map[string]any{"fusion.k": math.NaN()}, sameWords},
		{"b above 1", map[string]any{"bm25.b": 2.0}, sameWords},
		{"k1 above 10", map[string]any{"bm25.k1": 11.0}, sameWords},
		{"negative chunk", map[string]any{"chunk.size": -1.0}, sameWords},
		{"overlap not below size", map[string]any{"chunk.size": 50.0, "chunk.overlap": 50.0}, sameWords},
		{"overlap for whole documents", map[string]any{"chunk.size": 0.0, "chunk.overlap": 10.0}, sameWords},
		{"depth too large", map[string]any{"depth": 20000.0}, sameWords},
		{"depth negative", map[string]any{"depth": -1.0}, sameWords},
		{"depth conflicts with fusion.depth", map[string]any{"depth": 50.0, "fusion.depth": 40.0}, sameWords},
		{"weight of no retriever", map[string]any{"fusion.weights.sparse": 0.5}, sameWords},
		{"negative weight", map[string]any{"fusion.weights.bm25": -1.0}, sameWords},
		{"unknown method", map[string]any{"fusion.method": "best"}, sameWords},
		{"unknown normalization", map[string]any{"fusion.normalization": "x"}, sameWords},
		{"no retrievers", map[string]any{"retrievers": []any{}}, sameWords},
		{"a retriever twice", map[string]any{"retrievers": []any{"bm25", "bm25"}}, sameWords},
		{"unknown retriever", map[string]any{"retrievers": []any{"bm25", "sparse"}}, sameWords},
		{"several problems", map[string]any{"fusion.k": -1.0, "bm25.b": 2.0, "chunk.size": -5.0}, sameWords},
		{"no dense model", map[string]any{"dense.model": ""}, sameWords},
		// Refused by both: the typed overlay names the wrong kind or the
		// unknown parameter, the file in YAML's or the render's terms.
		{"unknown key", map[string]any{"fusion.kk": 10.0}, ownWords},
		{"unknown top-level key", map[string]any{"nosuch": 1.0}, ownWords},
		{"a weaviate parameter", map[string]any{"alpha": 0.5}, ownWords},
		{"k not a number", map[string]any{"fusion.k": "sixty"}, ownWords},
		{"k a boolean", map[string]any{"fusion.k": true}, ownWords},
		{"chunk size a string", map[string]any{"chunk.size": "200"}, ownWords},
		{"retrievers a string", map[string]any{"retrievers": "bm25"}, ownWords},
		{"retrievers holding a number", map[string]any{"retrievers": []any{1.0}}, ownWords},
		{"a parameter under a leaf", map[string]any{"fusion": "x", "fusion.k": 1.0}, ownWords},
		// YAML is laxer than the typed overlay here (experiment files
		// refuse all of these): Check refuses them all.
		{"passage a string", map[string]any{"passage": "yes"}, lax},
		{"dense model a number", map[string]any{"dense.model": 5.0}, lax},
		{"null keeps the default", map[string]any{"fusion.k": nil}, lax},
		{"a fractional integer is truncated", map[string]any{"chunk.size": 100.5}, lax},
		{"a number for a string setting", map[string]any{"fusion.method": 5.0}, lax},
		{"a weights object", map[string]any{"fusion.weights": map[string]any{"bm25": 0.5}}, lax},
		{"an engine key that is no parameter", map[string]any{"dense.base_url": "http://127.0.0.1:1/v1"}, lax},
		{"not UTF-8", map[string]any{"dense.model": "openai:\xff\x01"}, lax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if typed := sameAsRenderParse(t, f, tt.params); typed != (tt.want == accepted) {
				t.Errorf("accepted by the typed overlay: %v, want %v", typed, tt.want == accepted)
			}
			if tt.want == accepted || tt.want == lax {
				return
			}
			_, err := f.Config(tt.params)
			_, wantErr := renderParse(f, tt.params)
			if wantErr == nil {
				t.Fatalf("Config: %v; render+parse accepts it", err)
			}
			got, _ := problems(err)
			want, validate := problems(wantErr)
			if tt.want == sameWords && (!validate || !slices.Equal(got, want)) {
				t.Errorf("problems\n%q\nrender+parse\n%q", got, want)
			}
		})
	}
}

// TestShippedTrialsTyped: every trial of the shipped experiment files and
// the study space's corners is accepted by the typed overlay, as
// render-then-parse accepts it, and Check renders no YAML for them.
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
				t.Errorf("%s: %s: refused by the typed overlay", path, tr.Name)
			}
		}
	}
	if n < 80 {
		t.Fatalf("%d shipped trials: the experiment files moved?", n)
	}
}

// FuzzCheckIsRenderParse: for any value of any parameter, alone or beside
// a second one, a trial Check accepts is one render-then-parse accepts
// alike, and one Config refuses Check refuses.
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
