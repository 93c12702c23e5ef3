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
// vectors the embedded engine indexes) and keeps it when the sweep ends,
// marked as kept (keep.go), so that a promotion reads the very table and
// HNSW index its trial was measured on; the next promotion drops the kept
// tables its function does not read.
//
// Attach mode (Attach) tunes the user's own table or SQL instead: only
// query-time parameters, read-only, the query vectors from file:<path> or
// openai:<model>; its promotion writes the query parameters file
// (QueryParams) and optionally a function over the user's table.
//
// Queries are SQL texts with named parameters (@query, @vector, @k,
// @depth, @rrf_k, @w_bm25, @w_dense, @floor_bm25, @floor_dense; see
// HybridSQL and ExplainSQL): the hybrid query answers searches and the
// candidate lists ExplainSQL adds (one evaluation of each leg) are what the tuner's replay
// fuses offline with fusion.Postgres, which the hybrid SQL reproduces bit
// for bit. Each search runs in a transaction that sets hnsw.ef_search to
// at least the depth (pgvector's default of 40 would return at most 40
// rows to LIMIT 100). A request's fusion variants are ranked in the same
// statement (legs.multi): the legs once, each variant's fusion over them.
//
// Tie rules: inside each leg, equal scores rank by chunk id ascending;
// in the fused list, by document id descending (both byte order).
//
// Promotion: the production config is a YAML file of the chosen settings
// (Config); verifying it (re)creates the SQL function
// hybrid_search(query text, query_vec vector, k int) whose parameter
// defaults are those settings, over a table it keeps. Rolling back
// restores the file and recreates the function from it; rolling back past
// the first promotion drops the function and the table it read.
//
// Imports of ours: backend, backend/corpus, backend/embed, backend/fusion,
// internal/userfile.
package postgres
