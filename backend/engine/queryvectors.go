package engine

import (
	"context"
	"sync"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/embed"
)

// QueryVectors returns a function embedding a query with the embedder
// model names (see embed.New), in the space of the corpus's chunks under
// chunk as corpus.IndexTexts cuts them: what an external engine loaded with those
// chunks' embeddings needs as its query vector. model is checked now; the
// corpus is read and a corpus-fitted embedder (lsa-<dim>) fitted on the
// first call, whose error every later call returns too.
func QueryVectors(c corpus.Config, chunk corpus.ChunkConfig, model string, opts embed.Options) (func(context.Context, string) ([]float32, error), error) {
	if _, err := embed.New(model, opts); err != nil {
		return nil, err
	}
	get := sync.OnceValues(func() (embed.Embedder, error) {
		loaded, err := corpus.Load(c)
		if err != nil {
			return nil, err
		}
		_, texts, err := corpus.IndexTexts(loaded.Docs, chunk)
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
