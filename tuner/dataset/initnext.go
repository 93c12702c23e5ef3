package dataset

import (
	"fmt"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments"
)

// InitNext is what to say after InitProject wrote in into dir: with the
// user's dataset, what it holds (its queries, grade scale, the default
// primary on it), then one line of what to do next — set the corpus when
// there is none, write the skeleton's queries without a dataset, check
// the experiment file (the sweep's own checks) and run the sweep.
func InitNext(dir string, in *Initialized) string {
	settings := filepath.Join(dir, experiments.InitSettingsFile)
	next := "next: "
	if in.Corpus == "" {
		next = fmt.Sprintf("next: set dataset.corpus in %s, ", settings)
	}
	run := fmt.Sprintf("then run 'tune --experiments %s' in %s\n", experiments.InitExperimentFile, dir)
	d := in.Dataset
	if d == nil {
		golden := filepath.Join(dir, experiments.InitGoldenFile)
		return next + fmt.Sprintf("write the queries of %s ('tune check %s' lists what is left), ", golden, golden) + run
	}
	about := fmt.Sprintf("dataset: %s, %d judged queries, %d judgments", d.Kind, d.NumQueries, d.NumJudgments)
	if in.Docs > 0 {
		about += fmt.Sprintf("; corpus of %d documents", in.Docs)
	}
	about += fmt.Sprintf("\ngrades: %s\nprimary: %s\n", d.Scale, d.Primary)
	return about + next + fmt.Sprintf("run 'tune check %s' in %s (the checks a sweep runs before its first trial), ", experiments.InitExperimentFile, dir) + run
}
