package sampler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
)

// FuzzSearchSpace feeds arbitrary experiment files to the parser and, when
// it accepts a search space, to the sampler: every space the parser
// accepts must make a study (the parser's checks and the sampler's agree),
// and every sampled value must lie in its parameter's range, on its step,
// among its choices — for each sampler, never a panic.
func FuzzSearchSpace(f *testing.F) {
	for _, pattern := range []string{"../../experiments/study.yaml", "../../experiments/testdata/experiments/space*", "../../experiments/testdata/experiments/*.good.*"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if strings.HasSuffix(p, ".err") || strings.HasSuffix(p, ".out") {
				continue
			}
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data, uint8(0))
			}
		}
	}
	f.Add([]byte("trials: 3\nspace:\n  fusion.k: {type: int, low: 1, high: 2}\n  fusion.method: {type: categorical, choices: [rrf, linear]}\n"), uint8(1))
	f.Add([]byte("trials: 2\nspace:\n  bm25.k1: {type: log_float, low: 0.01, high: 10}\n"), uint8(2))
	samplers := []string{sampler.Random, sampler.TPE, sampler.CMAES}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		ef, err := experiments.ParseExperimentFile("fuzz.yaml", data)
		if err != nil || len(ef.Space) == 0 {
			return
		}
		o := sampler.OptionsFor(ef)
		o.Sampler = samplers[int(which)%len(samplers)]
		o.Trials = min(o.Trials, 4) // a few trials each: the space, not the optimizer, is under test
		study, err := sampler.New(o)
		if err != nil {
			t.Fatalf("the parser accepted a space the sampler refuses: %v\n%s", err, data)
		}
		for i := 0; i < o.Trials; i++ {
			p, err := study.Ask()
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			for _, sp := range ef.Space {
				if msg := checkValue(sp, p.Params[sp.Param]); msg != "" {
					t.Fatalf("trial %d: %s = %v: %s (space %+v)", i, sp.Param, p.Params[sp.Param], msg, sp)
				}
			}
			if err := study.Tell(p, runs.TrialRecord{Status: runs.StatusOK, Primary: float64(i % 3)}); err != nil {
				t.Fatalf("tell: %v", err)
			}
		}
	})
}
