package ui

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend/engine"
)

// Doc is a corpus document as the pages show it.
type Doc struct {
	Title, Text string
}

// CorpusDocs reads the corpus at path (BEIR corpus.jsonl, JSONL or a
// folder, as the embedded engine reads it) and returns a lookup of each
// document's title and text for the judge pages and the microscope.
func CorpusDocs(path string) (func(id string) (Doc, bool), error) {
	c, err := engine.LoadCorpus(engine.CorpusConfig{Path: path})
	if err != nil {
		return nil, fmt.Errorf("ui: corpus: %w", err)
	}
	byID := make(map[string]Doc, len(c.Docs))
	for _, d := range c.Docs {
		byID[d.ID] = Doc{Title: d.Title, Text: d.Text}
	}
	return func(id string) (Doc, bool) {
		d, ok := byID[id]
		return d, ok
	}, nil
}
