package embed_test

import (
	"context"
	"fmt"

	"github.com/fusiontune/fusiontune/backend/embed"
)

func ExampleNew() {
	e, err := embed.New("hash-256", embed.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	q, _ := e.EmbedQuery(ctx, "retrieval")
	docs, _ := e.EmbedDocuments(ctx, []string{"d1", "d2"}, []string{"retreival", "banana"})
	fmt.Println(e.Name(), e.Dim())
	fmt.Println("typo closer than an unrelated word:", embed.Cosine(q, docs[0]) > embed.Cosine(q, docs[1]))

	_, err = embed.New("bert", embed.Options{})
	fmt.Println(err)
	// Output:
	// hash-256 256
	// typo closer than an unrelated word: true
	// embed: unknown embedder "bert" (want lsa-<dim>, hash-<dim>, openai:<model> or file:<path>)
}

func ExampleLSA() {
	corpus := []string{
		"the telescope observed a distant galaxy",
		"a comet crossed the orbit of the planet",
		"the galaxy and the planet orbit a star",
		"knead the dough with flour and butter",
		"bake the pastry in a hot oven with butter",
		"sugar and flour make a sweet dough",
	}
	e := embed.NewLSA(2, embed.DefaultSeed)
	if err := e.Fit(context.Background(), embed.Strings(corpus)); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	docs, _ := e.EmbedDocuments(ctx, nil, corpus)
	q, _ := e.EmbedQuery(ctx, "planet orbit")
	astro, baking := embed.Cosine(q, docs[2]), embed.Cosine(q, docs[4])
	fmt.Println("astronomy above 0.9:", astro > 0.9, "baking below 0.1:", baking < 0.1)
	// Output:
	// astronomy above 0.9: true baking below 0.1: true
}
