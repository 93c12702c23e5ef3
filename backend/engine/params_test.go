package engine_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
)

// bases are engine configs as `tune` builds them (a YAML map that trial
// params overlay), from the plainest to ones whose settings conflict with
// some trials.
func bases(tb testing.TB) map[string]map[string]any {
	tb.Helper()
	corpus, err := filepath.Abs("testdata/tiny/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	read := func(yaml string) map[string]any {
		m, err := render.ReadYAMLMap([]byte(yaml))
		if err != nil {
			tb.Fatal(err)
		}
		return m
	}
	head := fmt.Sprintf("corpus: {path: %q}\ncache_dir: /tmp/fusiontune-cache\n", corpus)
	return map[string]map[string]any{
		// What newEmbeddedSetup writes for the demo: corpus, cache, model.
		"demo": read(head + "dense: {model: hash-384}\n"),
		// A full config: weights, depth, thresholds, passages, chunks.
		"full": read(head + `dense: {model: hash-64, min_score: 0.1}
bm25: {k1: 1.2, b: 0.75, min_score: 0.5}
fusion: {method: linear, k: 30, normalization: z_score, weights: {bm25: 0.3, dense: 0.7}}
chunk: {size: 400}
depth: 50
min_score: 0.01
passage: true
`),
		// fusion.depth conflicts with every trial that sets depth.
		"fusion-depth": read(head + "dense: {model: hash-384}\nfusion: {depth: 40}\n"),
		// One retriever: a trial weighting dense is invalid.
		"bm25-only": read(head + "retrievers: [bm25]\n"),
		// An empty weights map, which YAML decodes to an empty map.
		"empty-weights": read(head + "dense: {model: hash-384}\nfusion: {weights: {}}\n"),
	}
}

// renderParse is how `tune` reads a trial's config today: render the base
// with the params, parse the YAML.
func renderParse(base map[string]any, params map[string]any) (engine.Config, error) {
	data, err := render.YAMLOverlay(base, experiments.CustomPrefix)(params)
	if err != nil {
		return engine.Config{}, err
	}
	return engine.ParseConfig(data, "trial config", "/")
}

// renderParseSettings is what a render-then-parse reading
// resolves for a trial: the rendered config's effective fusion with an
// explicit weight for every enabled retriever, MinScore and Passage.
func renderParseSettings(base map[string]any, params map[string]any) (fusion.Settings, error) {
	cfg, err := renderParse(base, params)
	if err != nil {
		return fusion.Settings{}, err
	}
	// What the tuner resolved before the typed overlay existed: the
	// effective params with a weight for every enabled retriever, and only
	// for them (a disabled retriever's weight is kept in the config, unused).
	p := cfg.FusionParams()
	w := map[string]float64{}
	for _, r := range cfg.Retrievers {
		w[r] = p.Weight(r) // 1 when the config sets none
	}
	p.Weights = w
	s := fusion.Settings{Fusion: p, MinScore: cfg.MinScore, Passage: cfg.Passage}
	// The floors of the enabled retrievers (query-time parameters).
	for r, floor := range map[string]*float64{"bm25": cfg.BM25.MinScore, "dense": cfg.Dense.MinScore} {
		if floor != nil && cfg.Has(r) {
			if s.Floors == nil {
				s.Floors = map[string]float64{}
			}
			s.Floors[r] = *floor
		}
	}
	return s, nil
}

// problems lists the "field: problem" lines of a config error, sorted
// (positions left out: WithParams has none).
func problems(err error) []string {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return []string{err.Error()}
	}
	out := make([]string, len(ce.Problems))
	for i, p := range ce.Problems {
		out[i] = p.Error()
	}
	slices.Sort(out)
	return out
}

// rendered reports whether a render-then-parse error came after the YAML
// was written (from ParseConfig), not from writing it.
func rendered(err error) bool {
	var ce *engine.ConfigError
	return errors.As(err, &ce)
}

// fromYAML reports whether a render-then-parse error came from encoding or
// decoding the YAML (whose wording WithParams does not copy) rather than
// from Validate.
func fromYAML(err error) bool {
	if !rendered(err) {
		return true
	}
	for _, p := range problems(err) {
		if strings.HasPrefix(p, "yaml: ") {
			return true
		}
	}
	return false
}

// checkSame compares WithParams on the parsed base with render-then-parse
// for one set of params.
// It returns whether both accepted the params.
func checkSame(t *testing.T, base map[string]any, params map[string]any) bool {
	t.Helper()
	bc, err := renderParse(base, nil)
	if err != nil {
		t.Fatalf("base: %v", err)
	}
	want, wantErr := renderParse(base, params)
	got, gotErr := bc.WithParams(params)
	switch {
	case wantErr == nil && gotErr == nil:
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: WithParams\n%+v\nrender+parse\n%+v", params, got, want)
		}
		ws, err := renderParseSettings(base, params)
		if err != nil {
			t.Fatal(err)
		}
		if gs := got.FusionSettings(); !reflect.DeepEqual(gs, ws) {
			t.Errorf("%v: FusionSettings\n%+v\nrender+parse\n%+v", params, gs, ws)
		}
	case wantErr == nil:
		t.Errorf("%v: WithParams: %v; render+parse accepts it", params, gotErr)
	case gotErr == nil && !rendered(wantErr):
		// yaml.v3 cannot encode some strings (invalid UTF-8 beside a
		// control character); WithParams, which writes no YAML, takes
		// them as given, as the round trip does the strings it can
		// encode.
		return false
	case gotErr == nil:
		t.Errorf("%v: WithParams accepts it; render+parse: %v", params, wantErr)
	case !fromYAML(wantErr) && !slices.Equal(problems(gotErr), problems(wantErr)):
		t.Errorf("%v: WithParams problems\n%q\nrender+parse\n%q", params, problems(gotErr), problems(wantErr))
	}
	return wantErr == nil && gotErr == nil
}

// shippedTrials returns the trials of the shipped experiment files, and
// the study's search space.
func shippedTrials(tb testing.TB) ([]experiments.TrialSpec, []experiments.SpaceParam, experiments.Params) {
	tb.Helper()
	var trials []experiments.TrialSpec
	var space []experiments.SpaceParam
	var studyBase experiments.Params
	for _, name := range []string{"shortlist.json", "round1.json", "study.yaml"} {
		ef, err := experiments.LoadExperimentFile(filepath.Join("..", "..", "experiments", name))
		if err != nil {
			tb.Fatal(err)
		}
		ts, _, err := ef.Expand()
		if err != nil {
			tb.Fatal(err)
		}
		trials = append(trials, ts...)
		if len(ef.Space) > 0 {
			space, studyBase = ef.Space, ef.Baseline.Params
		}
	}
	return trials, space, studyBase
}

// spaceSamples returns the corners of space (low and high of every range,
// every choice of every categorical) and n seeded random points, each over
// base, with numbers as float64 as the samplers suggest them.
func spaceSamples(space []experiments.SpaceParam, base experiments.Params, n int) []experiments.Params {
	var out []experiments.Params
	var corner func(i int, p experiments.Params)
	corner = func(i int, p experiments.Params) {
		if i == len(space) {
			out = append(out, base.Overlay(p))
			return
		}
		sp := space[i]
		values := sp.Choices
		if sp.Type != "categorical" {
			values = []any{sp.Low, sp.High}
		}
		for _, v := range values {
			q := p.Clone()
			q[sp.Param] = v
			corner(i+1, q)
		}
	}
	corner(0, experiments.Params{})
	rng := rand.New(rand.NewPCG(42, 7))
	for range n {
		p := experiments.Params{}
		for _, sp := range space {
			switch sp.Type {
			case "categorical":
				p[sp.Param] = sp.Choices[rng.IntN(len(sp.Choices))]
			case "int":
				step := max(sp.Step, 1)
				p[sp.Param] = sp.Low + step*float64(rng.IntN(int((sp.High-sp.Low)/step)+1))
			default:
				p[sp.Param] = sp.Low + rng.Float64()*(sp.High-sp.Low)
			}
		}
		out = append(out, base.Overlay(p))
	}
	return out
}

// TestWithParamsEqualsRenderParse is the property: for every trial of the
// shipped experiment files, the study space's corners and random points,
// over every base, WithParams and FusionSettings give what rendering the
// YAML and parsing it give (reflect.DeepEqual), or both refuse the trial
// with the same problems.
func TestWithParamsEqualsRenderParse(t *testing.T) {
	trials, space, studyBase := shippedTrials(t)
	if len(trials) < 80 || len(space) == 0 {
		t.Fatalf("%d shipped trials, %d space params: the experiment files changed?", len(trials), len(space))
	}
	all := make([]experiments.Params, 0, len(trials))
	for _, tr := range trials {
		all = append(all, tr.Params)
	}
	all = append(all, spaceSamples(space, studyBase, 200)...)
	for name, base := range bases(t) {
		t.Run(name, func(t *testing.T) {
			accepted := 0
			for _, p := range all {
				if checkSame(t, base, p) {
					accepted++
				}
			}
			t.Logf("%d param sets: %d equal configs, %d refused by both", len(all), accepted, len(all)-accepted)
		})
	}
}

func TestWithParams(t *testing.T) {
	base, err := renderParse(bases(t)["full"], nil)
	if err != nil {
		t.Fatal(err)
	}
	min := func(f float64) *float64 { return &f }
	tests := []struct {
		name   string
		params map[string]any
		edit   func(c *engine.Config)
	}{
		{"nil params", nil, func(*engine.Config) {}},
		{"fusion", map[string]any{"fusion.method": "rrf", "fusion.k": 40.0, "fusion.normalization": "l2", "fusion.weights.bm25": 0.6},
			func(c *engine.Config) {
				c.Fusion = fusion.Params{Method: fusion.RRF, K: 40, Normalization: fusion.L2, Weights: map[string]float64{"bm25": 0.6, "dense": 0.7}}
			}},
		{"depth and thresholds", map[string]any{"depth": 200.0, "min_score": 0.5, "bm25.min_score": 1.0, "dense.min_score": 0.25},
			func(c *engine.Config) {
				c.Depth, c.MinScore, c.BM25.MinScore, c.Dense.MinScore = 200, min(0.5), min(1), min(0.25)
			}},
		{"index-time", map[string]any{"chunk.size": 0.0, "chunk.overlap": 0.0, "dense.model": "lsa-128", "bm25.k1": 0.9, "bm25.b": 0.4},
			func(c *engine.Config) {
				c.Chunk, c.Dense.Model, c.BM25.K1, c.BM25.B = corpus.ChunkConfig{}, "lsa-128", 0.9, 0.4
			}},
		{"retrievers as experiment files give them", map[string]any{"retrievers": []string{"bm25", "dense"}},
			func(*engine.Config) {}},
		{"retrievers as YAML gives them", map[string]any{"retrievers": []any{"dense", "bm25"}},
			func(c *engine.Config) { c.Retrievers = []string{"dense", "bm25"} }},
		{"passage and fusion.depth", map[string]any{"passage": false, "fusion.depth": 50, "depth": 0},
			func(c *engine.Config) { c.Passage, c.Fusion.Depth, c.Depth = false, 50, 0 }},
		{"ints", map[string]any{"depth": 75, "fusion.k": int64(20)},
			func(c *engine.Config) { c.Depth, c.Fusion.K = 75, 20 }},
		{"custom params are ignored", map[string]any{"custom.boost": 2.0, "custom.fusion.k": "x"},
			func(*engine.Config) {}},
		{"a relative file model is kept as given", map[string]any{"dense.model": "file:vectors.jsonl"},
			func(c *engine.Config) { c.Dense.Model = "file:vectors.jsonl" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fmt.Sprintf("%+v", base)
			got, err := base.WithParams(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			want := base
			want.Fusion.Weights = map[string]float64{"bm25": 0.3, "dense": 0.7}
			tt.edit(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, want)
			}
			if after := fmt.Sprintf("%+v", base); after != before {
				t.Errorf("the receiver changed:\n%s\n%s", before, after)
			}
		})
	}
}

// TestWithParamsErrors lists the problems of bad params: every one at
// once, each naming its parameter; Validate's problems are worded as
// ParseConfig's.
func TestWithParamsErrors(t *testing.T) {
	base, err := renderParse(bases(t)["demo"], nil)
	if err != nil {
		t.Fatal(err)
	}
	known := "(known: " + strings.Join(engine.ParamNames(), ", ") + ")"
	tests := []struct {
		name   string
		params map[string]any
		want   []string
	}{
		{"unknown parameter", map[string]any{"fusion.kk": 60.0},
			[]string{"fusion.kk: unknown parameter " + known}},
		{"not a trial parameter", map[string]any{"corpus.path": "/x"},
			[]string{"corpus.path: unknown parameter " + known}},
		{"a weight without a retriever", map[string]any{"fusion.weights.": 0.5, "fusion.weights.a.b": 0.5},
			[]string{"fusion.weights.: unknown parameter " + known, "fusion.weights.a.b: unknown parameter " + known}},
		{"a whole object", map[string]any{"fusion.weights": map[string]any{"bm25": 1.0}},
			[]string{"fusion.weights: unknown parameter " + known}},
		{"kinds, all at once", map[string]any{
			"fusion.k": "60", "depth": 100.5, "chunk.size": "big", "passage": "true", "retrievers": "bm25",
			"dense.model": 5.0, "min_score": nil, "fusion.weights.bm25": true, "fusion.method": []any{"rrf"},
		}, []string{
			`chunk.size: must be an integer (got "big")`,
			"dense.model: must be a string (got 5)",
			"depth: must be an integer (got 100.5)",
			`fusion.k: must be a number (got "60")`,
			"fusion.method: must be a string (got a list)",
			"fusion.weights.bm25: must be a number (got true)",
			"min_score: must be a number (got null)",
			`passage: must be true or false (got "true")`,
			`retrievers: must be a list of strings (got "bm25")`,
		}},
		{"list items", map[string]any{"retrievers": []any{"bm25", 3.0}},
			[]string{"retrievers: must be a list of strings (item 1 is 3)"}},
		{"integer range", map[string]any{"depth": 1e20, "chunk.size": math.Inf(1)},
			[]string{"chunk.size: must be an integer (got +Inf)", "depth: must be an integer (got 1e+20)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := base.WithParams(tt.params)
			if err == nil {
				t.Fatal("no error")
			}
			var ce *engine.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%T is not a *ConfigError: %v", err, err)
			}
			if got := problems(err); !slices.Equal(got, tt.want) {
				t.Errorf("problems\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestWeightOfADisabledRetriever: a trial that turns a retriever off
// inherits the baseline's weight for it (the shipped round1.json's
// bm25-only and dense-only): the weight is kept and unused, both ways, and
// the fusion settings name the enabled retrievers only.
func TestWeightOfADisabledRetriever(t *testing.T) {
	for _, tc := range []struct {
		base   string
		params map[string]any
	}{
		{"demo", map[string]any{"retrievers": []any{"bm25"}, "fusion.weights.dense": 0.5}},
		{"bm25-only", map[string]any{"fusion.weights.dense": 0.5}},
	} {
		if !checkSame(t, bases(t)[tc.base], tc.params) {
			t.Fatalf("%s %v: refused", tc.base, tc.params)
		}
		cfg, err := renderParse(bases(t)[tc.base], tc.params)
		if err != nil {
			t.Fatal(err)
		}
		if w := cfg.FusionSettings().Fusion.Weights; len(w) != 1 || w["bm25"] == 0 {
			t.Errorf("%s %v: fusion settings weights %v, want bm25's alone", tc.base, tc.params, w)
		}
	}
}

// TestWithParamsValidation compares the problems of invalid values with
// render-then-parse: the same Validate problems, without positions.
func TestWithParamsValidation(t *testing.T) {
	tests := []struct {
		name   string
		base   string
		params map[string]any
	}{
		{"unknown method", "demo", map[string]any{"fusion.method": "rrff"}},
		{"bad k and normalization", "demo", map[string]any{"fusion.k": -1.0, "fusion.normalization": "max"}},
		{"NaN k", "demo", map[string]any{"fusion.k": math.NaN()}},
		{"negative weight", "demo", map[string]any{"fusion.weights.dense": -0.5}},
		{"weights of unknown retrievers", "demo", map[string]any{"fusion.weights.splade": 1.0, "fusion.weights.colbert": 1.0}},
		{"unknown retriever, twice", "demo", map[string]any{"retrievers": []any{"bm25", "sparse", "bm25"}}},
		{"no retriever", "demo", map[string]any{"retrievers": []any{}}},
		{"depth too large", "demo", map[string]any{"depth": 20000.0}},
		{"negative depth", "demo", map[string]any{"depth": -5.0}},
		{"depth conflicts with fusion.depth", "fusion-depth", map[string]any{"depth": 100.0}},
		{"overlap not below size", "demo", map[string]any{"chunk.size": 100.0, "chunk.overlap": 100.0}},
		{"overlap with whole documents", "demo", map[string]any{"chunk.overlap": 10.0}},
		{"bm25 out of range", "demo", map[string]any{"bm25.k1": 11.0, "bm25.b": -0.1}},
		{"no model for dense", "demo", map[string]any{"dense.model": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := bases(t)[tt.base]
			if _, err := renderParse(base, tt.params); err == nil || fromYAML(err) {
				t.Fatalf("render+parse: %v: not a Validate problem", err)
			}
			checkSame(t, base, tt.params)
		})
	}
}

// TestEngineNamesMatchExperiments checks that the engine's parameter
// vocabulary is the experiment files': every known parameter of one is
// known to the other (but another engine's own, such as Weaviate's alpha),
// with the same prefixes.
func TestEngineNamesMatchExperiments(t *testing.T) {
	if engine.CustomPrefix != experiments.CustomPrefix || engine.WeightPrefix != experiments.WeightPrefix {
		t.Fatalf("prefixes differ: %q %q vs %q %q", engine.CustomPrefix, engine.WeightPrefix, experiments.CustomPrefix, experiments.WeightPrefix)
	}
	ours := engine.ParamNames()
	for _, n := range experiments.ParamNames() {
		if strings.HasPrefix(n, experiments.CustomPrefix) {
			continue
		}
		if spec, _ := experiments.LookupParam(n); spec.Engine != "" {
			continue // another engine's own parameter (alpha: weaviate)
		}
		if !slices.Contains(ours, n) {
			t.Errorf("experiment parameter %q unknown to the engine", n)
		}
	}
}

func TestConfigFusionSettings(t *testing.T) {
	min := func(f float64) *float64 { return &f }
	tests := []struct {
		name string
		c    engine.Config
		want fusion.Settings
	}{
		{
			name: "defaults: weight 1 for every retriever",
			c:    engine.DefaultConfig(),
			want: fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 60, Normalization: fusion.MinMax, Depth: 100,
				Weights: map[string]float64{"bm25": 1, "dense": 1}}},
		},
		{
			name: "weights of the enabled retrievers only; depth; threshold; passages",
			c: engine.Config{Retrievers: []string{"dense"}, Depth: 30, MinScore: min(0.2), Passage: true,
				Fusion: fusion.Params{Method: fusion.Linear, Weights: map[string]float64{"dense": 0.4}}},
			want: fusion.Settings{Fusion: fusion.Params{Method: fusion.Linear, K: 60, Normalization: fusion.MinMax, Depth: 30,
				Weights: map[string]float64{"dense": 0.4}}, MinScore: min(0.2), Passage: true},
		},
		{
			name: "floors of the enabled retrievers only",
			c: engine.Config{Retrievers: []string{"bm25"}, BM25: engine.BM25Config{MinScore: min(1.5)},
				Dense: engine.DenseConfig{MinScore: min(0.3)}},
			want: fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 60, Normalization: fusion.MinMax, Depth: 100,
				Weights: map[string]float64{"bm25": 1}}, Floors: map[string]float64{"bm25": 1.5}},
		},
		{
			name: "fusion.depth wins",
			c:    engine.Config{Retrievers: []string{"bm25"}, Fusion: fusion.Params{Depth: 7, K: 10}},
			want: fusion.Settings{Fusion: fusion.Params{Method: fusion.RRF, K: 10, Normalization: fusion.MinMax, Depth: 7,
				Weights: map[string]float64{"bm25": 1}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.FusionSettings()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tt.c.MinScore != nil && got.MinScore == tt.c.MinScore {
				t.Error("MinScore shares the config's pointer")
			}
		})
	}
}

// FuzzWithParams compares WithParams with render-then-parse on arbitrary
// values of the fusion parameters, an integer and a string setting
// (leaving out the documented differences: fractional integers, NaN).
func FuzzWithParams(f *testing.F) {
	f.Add(60.0, 100.0, "rrf", 0.5, 0.01, "hash-384")
	f.Add(-1.0, 20000.0, "linear", -0.5, -3.0, "")
	f.Add(1e-300, 0.0, "line one\nline two: x", 1e300, 0.0, "file:/v.jsonl")
	base := bases(f)["demo"]
	f.Fuzz(func(t *testing.T, k, depth float64, method string, weight, minScore float64, model string) {
		for _, x := range []float64{k, depth, weight, minScore} {
			if math.IsNaN(x) {
				t.Skip("NaN: DeepEqual cannot compare it")
			}
		}
		if depth != math.Trunc(depth) {
			t.Skip("a fractional integer: YAML truncates it, WithParams refuses it")
		}
		checkSame(t, base, map[string]any{
			"fusion.k": k, "depth": depth, "fusion.method": method, "fusion.weights.dense": weight,
			"min_score": minScore, "dense.model": model,
		})
	})
}
