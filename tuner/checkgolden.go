package tuner

import (
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
)

// CheckGolden validates the golden set at path as `tune check` does: read
// with lo, then, when corpus returns one, its judgments resolved against
// that corpus (allow: judged documents may be missing from it). It
// returns the summary printed after "ok FILE", the warnings, or the
// problems found (each naming the file).
func CheckGolden(path string, lo experiments.LoadOptions, corpus func() (string, bool, error)) (string, []error, error) {
	gs, err := experiments.LoadGoldenSet(path, lo)
	if err != nil {
		return "", nil, err // problems and I/O errors both name the file
	}
	var warnings []error
	for _, w := range gs.Warnings {
		warnings = append(warnings, w)
	}
	summary := fmt.Sprintf("%d queries, %d judgments", len(gs.Queries), gs.NumJudgments())
	path, allow, err := corpus()
	if err != nil || path == "" {
		return summary, warnings, err
	}
	docs, err := CorpusDocuments(path)
	if err != nil {
		return "", warnings, err
	}
	r, err := gs.Resolve(docs)
	if err != nil {
		return "", warnings, err
	}
	for _, w := range r.Warnings {
		warnings = append(warnings, w)
	}
	warn, err := r.CheckMissing(docs, allow)
	if err != nil {
		return "", warnings, err
	}
	if warn != nil {
		warnings = append(warnings, warn)
	}
	return fmt.Sprintf("%s; %d judged documents found in a corpus of %d", summary, r.JudgedFound(), len(docs)), warnings, nil
}
