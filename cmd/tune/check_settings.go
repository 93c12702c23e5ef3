package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/suggest"
	"github.com/fusiontune/fusiontune/runs"
	"gopkg.in/yaml.v3"
)

// isSettingsFile reports whether path is a settings file: named tune.yaml
// (or tune.yml), or a YAML file without a golden set's queries whose top
// level has a settings key or a near miss of one (so that a file of typos
// is still checked as settings).
func isSettingsFile(path string) bool {
	switch strings.ToLower(filepath.Base(path)) {
	case "tune.yaml", "tune.yml":
		return true
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
	default:
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil || len(top) == 0 {
		return false
	}
	if _, ok := top["queries"]; ok {
		return false // a golden set
	}
	keys := structKeys(reflect.TypeFor[settings](), "mapstructure")
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	for k := range top {
		if _, ok := keys[strings.ToLower(k)]; ok || suggest.Closest(k, names) != "" {
			return true // a settings key, or a typo of one
		}
	}
	return false
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
	if err := s.checkInputs(); err != nil {
		return "", nil, err
	}
	var problems []string
	if _, err := newScorer(s.Score, experiments.DefaultScale()); err != nil { // the formula only: the scale comes with the golden set
		problems = append(problems, fmt.Sprintf("%s: score.primary: %v", s.src.where("score.primary"), err))
	}
	a := &app{stdout: io.Discard, stderr: io.Discard, secrets: runs.NewRedactor()}
	corpus := s.Dataset.Corpus
	if corpus == "" {
		corpus = engineCorpusPath(s)
	}
	if corpus == "" {
		// The shipped demo stands in; it is extracted only by a run.
		corpus = userCachePath(filepath.Join("demo", "corpus.jsonl"))
	}
	if _, err := a.newFactory(s, corpus); err != nil {
		problems = append(problems, err.Error())
	}
	if err := checkSettingsCategories(s); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return "", nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	dataset := "the shipped demo"
	if s.Dataset.Path != "" {
		dataset = s.Dataset.Path
	}
	return fmt.Sprintf("settings: backend %s, dataset %s, %d gates", s.Backend.Kind, dataset, len(s.gates)), nil, nil
}
