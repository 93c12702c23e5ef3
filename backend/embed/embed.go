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
	Fit(ctx context.Context, texts Texts) error
}

// Texts is the document texts a Fitter learns from, read one at a time so
// that a corpus need not be held as strings beside its documents.
type Texts interface {
	// Len is the number of texts.
	Len() int
	// AppendText appends text i to dst and returns the extended slice.
	AppendText(dst []byte, i int) []byte
}

// Strings is Texts over a slice of strings.
type Strings []string

// Len returns len(s).
func (s Strings) Len() int { return len(s) }

// AppendText appends s[i] to dst.
func (s Strings) AppendText(dst []byte, i int) []byte { return append(dst, s[i]...) }

// FitEmbedder is implemented by Fitters that can return the vectors of the
// texts they fit on while fitting, cheaper than Fit then EmbedDocuments and
// equal to what those return.
type FitEmbedder interface {
	Fitter
	FitEmbed(ctx context.Context, texts Texts) ([][]float32, error)
}
