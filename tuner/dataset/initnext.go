package dataset

import (
	"fmt"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments"
)

// InitNext is what to do after InitProject wrote the starter files into
// dir: set the corpus (when corpus is ""), write the golden set's queries,
// then run the sweep. One line.
func InitNext(dir, corpus string) string {
	golden := filepath.Join(dir, experiments.InitGoldenFile)
	next := "next: "
	if corpus == "" {
		next = fmt.Sprintf("next: set dataset.corpus in %s, ", filepath.Join(dir, experiments.InitSettingsFile))
	}
	return next + fmt.Sprintf("write the queries of %s ('tune check %s' lists what is left), then run 'tune --experiments %s' in %s\n",
		golden, golden, experiments.InitExperimentFile, dir)
}
