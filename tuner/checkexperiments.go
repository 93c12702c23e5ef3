package tuner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	data, err := os.ReadFile(path)
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
	summary := fmt.Sprintf("experiments: %s in %s", plural(len(trials), "trial"), plural(len(Plan(trials)), "index group"))
	if len(ef.Space) > 0 {
		name := ef.Sampler
		if name == "" {
			name = sampler.Default
		}
		summary += fmt.Sprintf(", then %d sampled (%s over %d parameters, seed %d)", ef.Trials, name, len(ef.Space), ef.Seed)
	}
	return summary, warnings, nil
}

// plural renders "1 trial", "2 trials".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
