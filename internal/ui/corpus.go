package ui

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// CorpusDocs reads the corpus at path (BEIR corpus.jsonl, JSONL or a
// folder, as the embedded engine reads it) and returns a lookup of each
// document's title and text for the judge page.
func CorpusDocs(path string) (func(id string) (string, bool), error) {
	c, err := engine.LoadCorpus(engine.CorpusConfig{Path: path})
	if err != nil {
		return nil, fmt.Errorf("ui: corpus: %w", err)
	}
	byID := make(map[string]string, len(c.Docs))
	for _, d := range c.Docs {
		text := d.Text
		if d.Title != "" {
			text = d.Title + ". " + text
		}
		byID[d.ID] = text
	}
	return func(id string) (string, bool) {
		t, ok := byID[id]
		return t, ok
	}, nil
}
