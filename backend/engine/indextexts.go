package engine

import (
	"context"
	"sync"

	"github.com/fusiontune/fusiontune/backend/embed"
)

// IndexTexts returns what the engine indexes of a corpus under a chunk
// setting, in index order: each chunk, its id and the text both retrievers
// see (the document's title, a blank line, the chunk's text; the chunk's
// text alone without a title). An external engine loaded with these texts
// and their embeddings (embed.ForQueries fitted on texts) searches the
// same units as the embedded engine.
func IndexTexts(docs []Document, c ChunkConfig) (chunks []Chunk, texts []string, err error) {
	chunks, err = ChunkDocuments(docs, c.Size, c.Overlap)
	if err != nil {
		return nil, nil, err
	}
	return chunks, textsOf(chunks, chunkTitles(docs, chunks)), nil
}

// QueryVectors returns a function embedding a query with the embedder
// model names (see embed.New), in the space of the corpus's chunks under
// chunk as IndexTexts cuts them: what an external engine loaded with those
// chunks' embeddings needs as its query vector. model is checked now; the
// corpus is read and a corpus-fitted embedder (lsa-<dim>) fitted on the
// first call, whose error every later call returns too.
func QueryVectors(corpus CorpusConfig, chunk ChunkConfig, model string, opts embed.Options) (func(context.Context, string) ([]float32, error), error) {
	if _, err := embed.New(model, opts); err != nil {
		return nil, err
	}
	get := sync.OnceValues(func() (embed.Embedder, error) {
		c, err := LoadCorpus(corpus)
		if err != nil {
			return nil, err
		}
		_, texts, err := IndexTexts(c.Docs, chunk)
		if err != nil {
			return nil, err
		}
		return embed.ForQueries(context.Background(), model, opts, texts)
	})
	return func(ctx context.Context, q string) ([]float32, error) {
		e, err := get()
		if err != nil {
			return nil, err
		}
		return e.EmbedQuery(ctx, q)
	}, nil
}
