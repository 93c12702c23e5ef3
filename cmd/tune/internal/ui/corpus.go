package ui

import (
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// Doc is a corpus document as the pages show it.
type Doc struct {
	Title, Text string
}

// DocsOf is the lookup of Options.Docs over the corpus's documents as a
// judge reads them (dataset.Dataset.JudgeDocs): each document's title and
// text for the judge pages and the microscope.
func DocsOf(docs map[string]judge.Doc) func(id string) (Doc, bool) {
	return func(id string) (Doc, bool) {
		d, ok := docs[id]
		return Doc{Title: d.Title, Text: d.Text}, ok
	}
}
