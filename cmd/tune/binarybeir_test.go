package main_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// binaryBEIR describes a generated binary-judged BEIR collection.
type binaryBEIR struct {
	Docs, Queries, Judgments int
}

// writeBinaryBEIR writes into dir a BEIR folder (corpus.jsonl,
// queries.jsonl, qrels/test.tsv) judged as most public collections are:
// grade 1 for relevant, 0 for a judged non-relevant document. It is made
// up from seed, the same every time: topics with three facets each, every
// facet a handful of its own words; a document is about one facet of one
// topic, its words drawn from the facet's, the topic's and a shared
// vocabulary; a query asks about a facet in a few of its words and the
// topic's, some of them words no relevant document holds verbatim; the
// documents of its facet are relevant, a few of its topic's other facets
// judged non-relevant.
func writeBinaryBEIR(t *testing.T, dir string, seed uint64) binaryBEIR {
	t.Helper()
	const topics, facets, docsPerFacet, queriesPerTopic = 10, 3, 9, 3
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	seen := map[string]bool{}
	word := func() string {
		const cons, vows = "bcdfghklmnprstvz", "aeiou"
		for {
			var b strings.Builder
			for range 2 + r.IntN(2) {
				b.WriteByte(cons[r.IntN(len(cons))])
				b.WriteByte(vows[r.IntN(len(vows))])
			}
			b.WriteByte(cons[r.IntN(len(cons))])
			if w := b.String(); !seen[w] {
				seen[w] = true
				return w
			}
		}
	}
	words := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = word()
		}
		return out
	}
	common := words(200)
	pick := func(from []string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = from[r.IntN(len(from))]
		}
		return out
	}
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	line := func(b *strings.Builder, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	var out binaryBEIR
	for ti := range topics {
		topicWords := words(12)
		facetWords := make([][]string, facets)
		// Each facet's words come in pairs that never meet in one document:
		// a query's second word of a pair matches only by association.
		facetAlt := make([][]string, facets)
		ids := make([][]string, facets)
		for f := range facets {
			facetWords[f], facetAlt[f] = words(8), words(8)
		}
		for f := range facets {
			for d := range docsPerFacet {
				id := fmt.Sprintf("doc-%02d-%d-%d", ti, f, d)
				vocab := facetWords[f]
				if d%2 == 1 {
					vocab = facetAlt[f]
				}
				sibling := facetWords[(f+1+d%2)%facets]
				text := append(append(append(pick(vocab, 3), pick(sibling, 1)...), pick(topicWords, 8)...), pick(common, 40)...)
				r.Shuffle(len(text), func(i, j int) { text[i], text[j] = text[j], text[i] })
				title := strings.Join(pick(topicWords, 2), " ") + " " + vocab[0]
				line(&corpus, map[string]string{"_id": id, "title": title, "text": strings.Join(text, " ")})
				ids[f] = append(ids[f], id)
				out.Docs++
			}
		}
		for qi := range queriesPerTopic {
			f := qi % facets
			qid := fmt.Sprintf("q%02d%d", ti, qi)
			text := append(append(append(pick(facetWords[f], 1), pick(facetAlt[f], 1)...), pick(topicWords, 2)...), pick(common, 1)...)
			line(&queries, map[string]any{"_id": qid, "text": strings.Join(text, " "), "metadata": map[string]any{}})
			out.Queries++
			for _, id := range ids[f] {
				fmt.Fprintf(&qrels, "%s\t%s\t1\n", qid, id)
				out.Judgments++
			}
			other := ids[(f+1)%facets]
			for _, id := range other[:3] {
				fmt.Fprintf(&qrels, "%s\t%s\t0\n", qid, id)
				out.Judgments++
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*strings.Builder{"corpus.jsonl": &corpus, "queries.jsonl": &queries, "qrels/test.tsv": &qrels} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
