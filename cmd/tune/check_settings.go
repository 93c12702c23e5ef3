package main

import (
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"

	tunesettings "github.com/fusiontune/fusiontune/internal/settings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// isSettingsFile reports whether path is a settings file (see
// tunesettings.IsFile).
func isSettingsFile(path string) bool {
	return tunesettings.IsFile(path, reflect.TypeFor[settings]())
}

// checkSettingsFile validates a settings file as a sweep would read it
// (the FUSIONTUNE_* environment applies): every key and value with its
// file:line:col, the input files it names, the primary score and the
// backend's config, without starting anything.
func checkSettingsFile(path string, _ checkOptions) (string, []error, error) {
	s, err := loadSettings(path, nil, nil)
	if err != nil {
		return "", nil, err
	}
	if err := inputError(s.CheckInputs()); err != nil {
		return "", nil, err
	}
	var problems []string
	if _, err := s.Score.Scorer(experiments.DefaultScale()); err != nil { // the formula only: the scale comes with the golden set
		problems = append(problems, fmt.Sprintf("%s: score.primary: %v", s.Src.Where("score.primary"), err))
	}
	a := &app{stdout: io.Discard, stderr: io.Discard, secrets: runs.NewRedactor()}
	corpus := s.Dataset.Corpus
	if corpus == "" {
		corpus = s.EngineCorpusPath()
	}
	if corpus == "" {
		// The shipped demo stands in; it is extracted only by a run.
		corpus = userCachePath(filepath.Join("demo", "corpus.jsonl"))
	}
	if _, err := a.newFactory(s, corpus); err != nil {
		problems = append(problems, err.Error())
	}
	if err := s.CheckDatasetCategories(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return "", nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	dataset := "the shipped demo"
	if s.Dataset.Path != "" {
		dataset = s.Dataset.Path
	}
	return fmt.Sprintf("settings: backend %s, dataset %s, %d gates", s.Backend.Kind, dataset, len(s.ParsedGates)), nil, nil
}
