// Package postgres is the postgres backend kind: hybrid search in a real
// PostgreSQL database with the pgvector extension, lexical search by
// tsvector and ts_rank_cd (cover density ranking; not BM25, though the
// retriever keeps the name "bm25" so that experiment files and weights
// read the same on every kind) and dense search by pgvector cosine
// similarity (the inner product of L2-normalized vectors) over an HNSW
// index, fused in SQL by reciprocal rank fusion or
// by min-max normalized weighted sums.
//
// The kind owns its tables: for each index-time group (corpus, chunk size
// and overlap, embedding model, text-search configuration) it creates a
// table of chunks with a generated tsvector column (GIN index) and a
// vector column (HNSW index, vector_ip_ops), loads it with the tuner's
// own embeddings (embed.ForQueries over corpus.IndexTexts, the texts and
// vectors the embedded engine indexes) and drops it when the sweep ends.
//
// Queries are SQL texts with named parameters (@query, @vector, @k,
// @depth, @rrf_k, @w_bm25, @w_dense, @floor_bm25, @floor_dense; see
// HybridSQL and ExplainSQL): the hybrid query answers searches and the
// candidate lists ExplainSQL adds (one evaluation of each leg) are what the tuner's replay
// fuses offline with fusion.Postgres, which the hybrid SQL reproduces bit
// for bit. Each search runs in a transaction that sets hnsw.ef_search to
// at least the depth (pgvector's default of 40 would return at most 40
// rows to LIMIT 100).
//
// Promotion: the production config is a YAML file of the chosen settings
// (Config); verifying it (re)creates the SQL function
// hybrid_search(query text, query_vec vector, k int) whose parameter
// defaults are those settings, over a table it keeps. Rolling back
// restores the file and recreates the function from it.
//
// Imports of ours: backend, backend/corpus, backend/embed, backend/fusion.
package postgres
