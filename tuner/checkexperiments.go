package tuner

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"gopkg.in/yaml.v3"
)

// experimentKeys are top-level keys only an experiment file has.
var experimentKeys = []string{"baseline", "experiments", "grid", "space"}

// IsExperimentFile reports whether path is a JSON or YAML document whose
// top level has an experiment file's keys and no golden set's queries.
func IsExperimentFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
	default:
		return false
	}
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil { // YAML is a superset of JSON
		return false
	}
	if _, ok := top["queries"]; ok {
		return false
	}
	for _, k := range experimentKeys {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// CheckExperiments validates an experiment file the way a sweep does
// before any restart: syntax, keys, parameter values, the expanded trials.
// It returns the summary `tune check` prints after "ok FILE", the
// warnings, or the problems found.
func CheckExperiments(path string) (string, []error, error) {
	ef, err := LoadExperiments(path)
	if err != nil {
		return "", nil, err
	}
	trials, warns, err := ef.Expand()
	if err != nil {
		return "", nil, err
	}
	var warnings []error
	for _, w := range warns {
		warnings = append(warnings, fmt.Errorf("%s", w))
	}
	var study *sampler.Options
	if len(ef.Space) > 0 {
		so := sampler.OptionsFor(ef)
		study = &so
	}
	return "experiments: " + DescribeTrials(trials, study), warnings, nil
}

// DescribeTrials is what `tune check` says of a sweep's trials and the
// study after them (nil: none): "12 trials in 1 index group, then 30
// sampled (tpe over 2 parameters, seed 42)".
func DescribeTrials(trials []experiments.TrialSpec, study *sampler.Options) string {
	s := fmt.Sprintf("%s in %s", plural(len(trials), "trial"), plural(len(Plan(trials)), "index group"))
	if study != nil {
		s += fmt.Sprintf(", then %d sampled (%s over %d parameters, seed %d)", study.Trials, cmp.Or(study.Sampler, sampler.Default), len(study.Space), study.Seed)
	}
	return s
}

// plural renders "1 trial", "2 trials".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
