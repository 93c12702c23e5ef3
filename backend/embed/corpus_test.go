package embed_test

import (
	"math/rand/v2"
	"strings"
)

// plantedCorpus returns documents of two topics with disjoint
// vocabularies, n per topic (astronomy first, then baking), each of words
// words drawn from its topic. Astronomy documents also contain exactly one
// of the synonyms "cosmos" and "universe", which never share a document.
func plantedCorpus(n, words int) (astro, baking []string) {
	rng := rand.New(rand.NewPCG(11, 12))
	astroWords := strings.Fields("galaxy planet orbit telescope comet nebula asteroid meteor eclipse gravity")
	bakingWords := strings.Fields("flour butter oven dough sugar yeast recipe pastry whisk vanilla")
	doc := func(vocab []string, extra string) string {
		ws := make([]string, 0, words+1)
		for range words {
			ws = append(ws, vocab[rng.IntN(len(vocab))])
		}
		if extra != "" {
			ws = append(ws, extra)
		}
		return strings.Join(ws, " ")
	}
	for i := range n {
		synonym := "cosmos"
		if i%2 == 1 {
			synonym = "universe"
		}
		astro = append(astro, doc(astroWords, synonym))
		baking = append(baking, doc(bakingWords, ""))
	}
	return astro, baking
}

// zipfCorpus returns n synthetic documents of words words each over a
// Zipf-distributed vocabulary of vocab made-up terms.
func zipfCorpus(n, words, vocab int) []string {
	rng := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	docs := make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		for j := range words {
			if j > 0 {
				b.WriteByte(' ')
			}
			w := z.Uint64()
			b.WriteString("w")
			for ; w > 0; w /= 26 {
				b.WriteByte(byte('a' + w%26))
			}
		}
		docs[i] = b.String()
	}
	return docs
}
