package embed

import (
	"context"
	"fmt"
)

// ForQueries builds the embedder named by spec (see New) ready to embed
// queries into the same space as the documents whose texts are given: an
// embedder learned from the corpus (lsa-<dim>) is fitted on texts, exactly
// as an engine fits it before embedding those documents, so a query and a
// document embedded by the returned embedder (EmbedQuery, EmbedDocuments)
// compare by cosine like they do inside the engine. Embedders that learn
// nothing ignore texts. texts must be the indexed texts in index order
// (corpus.IndexTexts gives them for a corpus and chunk setting).
func ForQueries(ctx context.Context, spec string, opts Options, texts []string) (Embedder, error) {
	e, err := New(spec, opts)
	if err != nil {
		return nil, err
	}
	if f, ok := e.(Fitter); ok {
		if len(texts) == 0 {
			return nil, fmt.Errorf("embed: %s learns from the corpus: no document texts to fit it on", spec)
		}
		if err := f.Fit(ctx, Strings(texts)); err != nil {
			return nil, fmt.Errorf("embed: fit %s on %d texts: %w", spec, len(texts), err)
		}
	}
	return e, nil
}
