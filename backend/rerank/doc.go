// Package rerank is the rerank stage: a cross-encoder reranker behind the
// common HTTP /rerank endpoint (Client), an on-disk cache of its scores per
// (model, query, document text) (Cache, Scorer), and the pure rule that
// blends the reranker's scores with the fused scores of the top of a
// ranking (Blend, Rerank).
//
// Request and response shapes (Format):
//
//   - FormatCohere (the default) sends {"model", "query", "documents",
//     "top_n", "return_documents": false} and reads {"results": [{"index",
//     "relevance_score"}]}: Cohere's v1/v2 rerank, Jina's /v1/rerank, vLLM's
//     and Infinity's /rerank.
//   - FormatTEI sends {"query", "texts", "raw_scores": false} and reads
//     [{"index", "score"}]: Hugging Face text-embeddings-inference's /rerank.
//
// Either response may list the documents in any order (by score, as
// servers do); every index must appear once.
//
// Imports of ours: internal/openai.
package rerank
