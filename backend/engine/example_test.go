package engine_test

import (
	"fmt"

	"github.com/fusiontune/fusiontune/backend/corpus"
)

func ExampleChunkDocuments() {
	docs := []corpus.Document{{ID: "d", Text: "one two three four five"}}
	chunks, err := corpus.ChunkDocuments(docs, 3, 1)
	if err != nil {
		panic(err)
	}
	for _, c := range chunks {
		fmt.Printf("%s [%d,%d) %q\n", c.ID, c.Start, c.End, c.Text)
	}
	// Output:
	// d#0 [0,13) "one two three"
	// d#1 [8,23) "three four five"
}
