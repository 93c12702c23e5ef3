package experiments_test

import (
	"fmt"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

func ExampleLoadGoldenSet() {
	gs, err := experiments.LoadGoldenSet("testdata/golden/basic.good.yaml", experiments.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range gs.Queries {
		fmt.Printf("%s %-8s %d judgments, routing %q\n", q.ID, q.Category, len(q.Judgments), q.ExpectedRouting)
	}
	// Output:
	// q1 howto    3 judgments, routing "search"
	// q2 lookup   1 judgments, routing ""
	// q3 offtopic 0 judgments, routing "no_results"
}

func ExampleGoldenSet_Resolve() {
	gs, err := experiments.ParseGoldenSet("golden.yaml", []byte(`
- id: q1
  query: return a damaged kettle
  expected_passages:
    - passage_substring: Damaged items can be returned within thirty days of delivery
      relevance: high
    - doc_id_pattern: faq-.*
      relevance: 1
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	docs := []experiments.Document{
		{ID: "faq-returns", Text: "Returns.\n\nDAMAGED items can be returned within thirty\ndays of delivery. Keep the box."},
		{ID: "faq-shipping", Text: "We ship within two days."},
		{ID: "blog-1", Text: "Our new kettle."},
	}
	r, err := gs.Resolve(docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := r.Query("q1")
	fmt.Println("documents:", q.Judgments)
	s := q.Spans[0]
	fmt.Printf("span: %q\n", docs[0].Text[s.Start:s.End])
	chunks := experiments.IndexChunks([]experiments.Chunk{
		{ID: "faq-returns#0", DocID: "faq-returns", Start: 0, End: 8},
		{ID: "faq-returns#1", DocID: "faq-returns", Start: 10, End: 50},
		{ID: "faq-returns#2", DocID: "faq-returns", Start: 70, End: 84},
	})
	fmt.Println("chunks:", q.ChunkJudgments(chunks))
	// Output:
	// documents: map[faq-returns:3 faq-shipping:1]
	// span: "DAMAGED items can be returned within thirty\ndays of delivery"
	// chunks: map[faq-returns#0:1 faq-returns#1:3 faq-returns#2:1]
}

func BenchmarkParseGoldenSet(b *testing.B) {
	for _, name := range []string{"basic.good.json", "basic.good.yaml"} {
		data := readFixture(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := experiments.ParseGoldenSet(name, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
