package embed

import "context"

// Embedder maps documents and queries to vectors of Dim() float32s.
type Embedder interface {
	// Name is the spec the embedder was built from, e.g. "lsa-256"; it keys
	// the on-disk embedding cache.
	Name() string
	// Dim is the length of every vector.
	Dim() int
	// EmbedDocuments returns one vector per text; ids name the texts (chunk
	// ids) for embedders that look vectors up instead of computing them.
	EmbedDocuments(ctx context.Context, ids, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector of one query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Fitter is implemented by embedders whose model is learned from the corpus
// (lsa-<dim>). Fit must be called with every document text before
// EmbedDocuments or EmbedQuery.
type Fitter interface {
	Fit(ctx context.Context, texts []string) error
}

// FitEmbedder is implemented by Fitters that can return the vectors of the
// texts they fit on while fitting, cheaper than Fit then EmbedDocuments and
// equal to what those return.
type FitEmbedder interface {
	Fitter
	FitEmbed(ctx context.Context, texts []string) ([][]float32, error)
}
