package experiments_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/experiments"
)

// The engine's chunks carry byte offsets into Document.Text; these tests
// check that one golden set judges the same documents whatever the chunking.

func engineChunks(t *testing.T, docs []experiments.Document, size, overlap int) experiments.ChunkIndex {
	t.Helper()
	eds := make([]corpus.Document, len(docs))
	for i, d := range docs {
		eds[i] = corpus.Document{ID: d.ID, Text: d.Text}
	}
	ecs, err := corpus.ChunkDocuments(eds, size, overlap)
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]experiments.Chunk, len(ecs))
	for i, c := range ecs {
		chunks[i] = experiments.Chunk{ID: c.ID, DocID: c.DocID, Start: c.Start, End: c.End}
	}
	return experiments.IndexChunks(chunks)
}

// checkChunkings resolves gs against docs, then for each chunking checks
// that the documents of the judged chunks, each with the highest grade of
// its chunks, are exactly the resolved document judgments, and that every
// span is covered by judged chunks of at least its grade.
func checkChunkings(t *testing.T, gs *experiments.GoldenSet, docs []experiments.Document, sizes [][2]int) {
	r, err := gs.Resolve(docs)
	if err != nil {
		t.Fatal(err)
	}
	spans := 0
	for _, q := range r.Queries {
		spans += len(q.Spans)
	}
	t.Logf("%d queries, %d judgments, %d excerpt spans, resolution warnings: %v", len(gs.Queries), gs.NumJudgments(), spans, r.Warnings)
	for _, so := range sizes {
		t.Run(fmt.Sprintf("size %d overlap %d", so[0], so[1]), func(t *testing.T) {
			ci := engineChunks(t, docs, so[0], so[1])
			multi := 0
			docOf := map[string]string{}
			for doc, cs := range ci {
				if len(cs) > 1 {
					multi++
				}
				for _, c := range cs {
					docOf[c.ID] = doc
				}
			}
			t.Logf("%d documents cut into several chunks", multi)
			for _, q := range r.Queries {
				cj := q.ChunkJudgments(ci)
				byDoc := map[string]int{}
				for id, g := range cj {
					doc := docOf[id]
					if old, ok := byDoc[doc]; !ok || g > old {
						byDoc[doc] = g
					}
				}
				want := map[string]int{}
				for doc, g := range q.Judgments {
					if len(ci[doc]) > 0 { // judged documents outside the corpus have no chunks
						want[doc] = g
					}
				}
				if !maps.Equal(byDoc, want) {
					t.Fatalf("query %s: documents of judged chunks %v, want %v", q.ID, byDoc, want)
				}
				for _, s := range q.Spans {
					for pos := s.Start; pos < s.End; pos++ {
						covered := false
						for _, c := range ci[s.DocID] {
							if c.Start <= pos && pos < c.End && cj[c.ID] >= s.Grade {
								covered = true
							}
						}
						if !covered && !isSpaceAt(docs, s.DocID, pos) {
							t.Fatalf("query %s: byte %d of span %s[%d:%d] is in no judged chunk", q.ID, pos, s.DocID, s.Start, s.End)
						}
					}
				}
			}
		})
	}
}

func isSpaceAt(docs []experiments.Document, id string, pos int) bool {
	for _, d := range docs {
		if d.ID == id {
			c := d.Text[pos]
			return c == ' ' || c == '\n' || c == '\t' || c == '\r'
		}
	}
	return false
}

func TestDemoGoldenSetAcrossChunkSizes(t *testing.T) {
	gs, err := experiments.LoadGoldenSet("demo/golden.json", experiments.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Load(corpus.Config{Path: "demo/corpus.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]experiments.Document, len(c.Docs))
	for i, d := range c.Docs {
		docs[i] = experiments.Document{ID: d.ID, Text: d.Text}
	}
	// The demo documents hold 68-100 tokens, so 200, 300 and 500 keep them
	// whole; 16 and 32 cut every one of them into several chunks.
	checkChunkings(t, gs, docs, [][2]int{{200, 0}, {300, 50}, {500, 100}, {32, 8}, {16, 0}})
}

func TestSciFactExcerptsAcrossChunkSizes(t *testing.T) {
	gs, docs := sciFactExcerpts(t)
	checkChunkings(t, gs, docs, [][2]int{{200, 0}, {300, 50}, {500, 100}, {64, 16}})
}
