// Package engine is the embedded hybrid search engine behind `tune serve`:
// it loads a corpus (BEIR corpus.jsonl, plain JSONL or a folder of .md/.txt
// files) and cuts documents into token windows with backend/corpus, indexes
// them in its own
// inverted index (BM25 as bleve v2.5.7 scores it, bleve's English analyzer)
// and with an embedder from backend/embed (exact cosine
// search), and fuses the retrievers' candidate lists with backend/fusion, the
// same functions the tuner's offline replay calls.
//
// An Engine is configured once, from a Config (see LoadConfig), and built
// once (Build); a changed configuration needs a new Engine. The on-disk
// index and the embeddings are cached under Config.CacheDir, keyed by a hash
// of everything that shapes them, so a restart with unchanged index-time
// settings reuses them. A trial's parameters overlay a parsed Config with
// Config.WithParams (no YAML written or read), and Config.FusionSettings
// are the settings every request ranks with, which the replay fuses with.
//
// Server serves an Engine over HTTP: GET /healthz, POST /search, POST
// /search/batch (many searches in one request, answered as each completes;
// see batch.go), GET /config.
//
// Imports of ours: backend, backend/corpus, backend/embed, backend/fusion,
// backend/rerank, internal/atomicfile, internal/inputerr,
// internal/querylog, internal/searchwire, internal/userfile,
// internal/yamldoc.
package engine
