package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/suggest"
)

// EngineCorpusPath returns the corpus path of the embedded engine's
// settings, if any.
func (s *Settings) EngineCorpusPath() string {
	if c, ok := s.Backend.Engine["corpus"].(map[string]any); ok {
		if p, ok := c["path"].(string); ok {
			return p
		}
	}
	return ""
}

// CachePath is fusiontune's cache directory sub, not created.
func CachePath(sub string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "fusiontune", sub)
}

// cache is the directory a run's golden set is read with: CacheDir when
// set, else CachePath("").
func (s *Settings) cache() string {
	if s.CacheDir != "" {
		return s.CacheDir
	}
	return CachePath("")
}

// OpenDataset opens the settings' dataset (see dataset.OpenDataset), the
// embedded engine's corpus standing in for a missing dataset.corpus, and
// records the shipped demo's files in the settings when it stood in.
func (s *Settings) OpenDataset() (*dataset.Dataset, error) {
	ds, err := dataset.Open(s.Dataset, s.EngineCorpusPath(), s.cache())
	if err != nil {
		return nil, err
	}
	s.Dataset = ds.Config
	return ds, nil
}

// Scorer builds the scorer of the settings for a golden set read on
// scale (its thresholds and top grade reach every measure).
func (s Score) Scorer(scale experiments.Scale) (*scoring.MetricsScorer, error) {
	return scoring.NewScorer(s.Primary, s.Metrics, scoring.ScaleOptions(scale))
}

// CheckCategories refuses, before a sweep starts, a gate or a guarded
// category (promotion.guarded) naming a category that no evaluated query
// has: such a gate could only fail, and such a guard would guard nothing,
// once the whole run is done. Each problem is placed where the setting
// came from.
func (s *Settings) CheckCategories(queries []scoring.Query) error {
	have := map[string]bool{}
	for _, q := range queries {
		if q.Category != "" {
			have[q.Category] = true
		}
	}
	known := make([]string, 0, len(have))
	for c := range have {
		known = append(known, c)
	}
	sort.Strings(known)
	list := "the queries have no categories"
	if len(known) > 0 {
		list = "categories: " + strings.Join(known, ", ")
	}
	hint := func(c string) string {
		if m := suggest.Closest(c, known); m != "" {
			return fmt.Sprintf("did you mean %q? %s", m, list)
		}
		return list
	}
	var problems experiments.Problems
	for i, g := range s.ParsedGates {
		if g.Category != "" && !have[g.Category] {
			problems = append(problems, s.Src.Problem(fmt.Sprintf("gates[%d]", i), "gate %q: no evaluated query has category %q (%s)", g.Text, g.Category, hint(g.Category)))
		}
	}
	for i, c := range s.Promotion.Guarded {
		if c != "" && !have[c] {
			problems = append(problems, s.Src.Problem(fmt.Sprintf("promotion.guarded[%d]", i), "no evaluated query has category %q (%s)", c, hint(c)))
		}
	}
	if len(problems) > 0 {
		SortByPosition(problems)
		return problems
	}
	return nil
}
