package embedded_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/experiments"
)

// BenchmarkCheckTrials is tuner.CheckTrials' work on the demo shortlist
// (28 trials), on a new factory each time as a sweep has: every trial's
// engine config checked the way `tune serve` will read it. ns/op is per
// pass over the shortlist.
func BenchmarkCheckTrials(b *testing.B) {
	benchShortlist(b, func(f *embedded.Factory, t experiments.TrialSpec) {
		if err := f.Check(t.Params); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkDescribeTrials renders every shortlist trial's engine config
// (what each trial's record keeps and its apply writes) on a new factory,
// so that none comes from the factory's memo. ns/op is per pass over the
// shortlist.
func BenchmarkDescribeTrials(b *testing.B) {
	benchShortlist(b, func(f *embedded.Factory, t experiments.TrialSpec) {
		if d := f.Describe(t.Params); len(d) == 0 {
			b.Fatal("empty config")
		}
	})
}

// benchShortlist times one pass of each over the shipped shortlist's
// trials per iteration, on a factory made new (untimed) each time.
func benchShortlist(b *testing.B, each func(*embedded.Factory, experiments.TrialSpec)) {
	ef, err := experiments.LoadExperimentFile("../../experiments/shortlist.json")
	if err != nil {
		b.Fatal(err)
	}
	trials, _, err := ef.Expand()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		f, err := embedded.New(embedded.Options{ConfigFile: "testdata/engine.yaml", CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, t := range trials {
			each(f, t)
		}
	}
}
