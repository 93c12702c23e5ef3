package dataset

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// CheckGolden validates the golden set at path as `tune check` does: read
// with lo, then, when corpus returns one, its judgments resolved against
// that corpus (allow: judged documents may be missing from it). The
// primary score is score's on the set's grade scale (nil: the default
// for the scale); the measures it configures that no ranking can move
// on this set are warnings. It returns the summary printed after "ok
// FILE", then the grade scale and the primary on lines of their own, the
// warnings, or the
// problems found (each naming the file).
func CheckGolden(path string, lo experiments.LoadOptions, corpus func() (string, bool, error), score func(experiments.Scale) (*scoring.MetricsScorer, error)) (string, []error, error) {
	gs, err := experiments.LoadGoldenSet(path, lo)
	if err != nil {
		return "", nil, err // problems and I/O errors both name the file
	}
	var warnings []error
	for _, w := range gs.Warnings {
		warnings = append(warnings, w)
	}
	if score == nil {
		score = func(s experiments.Scale) (*scoring.MetricsScorer, error) {
			return scoring.NewScorer("default", nil, scoring.ScaleOptions(s))
		}
	}
	sc, err := score(gs.Scale)
	if err != nil {
		return "", warnings, err
	}
	for _, w := range sc.Unvarying(gs.HighestGrade()) {
		warnings = append(warnings, errors.New(w))
	}
	summary := fmt.Sprintf("%d queries, %d judgments%s", len(gs.Queries), gs.NumJudgments(), sourcesNote(gs.SourceCounts()))
	details := fmt.Sprintf("\ngrades: %s\nprimary: %s", gs.Scale, sc.Describe())
	path, allow, err := corpus()
	if err != nil || path == "" {
		return summary + details, warnings, err
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
	return fmt.Sprintf("%s; %d judged documents found in a corpus of %d%s", summary, r.JudgedFound(), len(docs), details), warnings, nil
}

// sourcesNote is " (manual 40, implicit 12)" when the judgments come from
// more than manual judging, else "".
func sourcesNote(counts map[string]int) string {
	if len(counts) == 0 || len(counts) == 1 && counts["manual"] > 0 {
		return ""
	}
	var parts []string
	for _, src := range experiments.JudgmentSources {
		if n := counts[src]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", src, n))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
