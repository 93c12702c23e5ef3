// Package lancedb drives LanceDB (@lancedb/lancedb 0.31.0) for tuning
// through a sidecar the kind ships (sidecar/server.mjs, a Node process on
// loopback speaking a small HTTP/JSON protocol; Sidecar, Client).
//
// Two modes. Sandbox: the kind builds a table per embedder in the run's
// directory from the corpus and the tuner's own document vectors, with
// LanceDB's FTS index on the text. Attach: the user's dataset directory
// and table (their vector column, an FTS index they built), opened and
// never changed; queries are embedded by the model that made the table's
// vectors (openai:, or file: with precomputed query vectors).
//
// Every parameter is the request's: a hybrid query (nearestTo +
// fullTextSearch, reranked by RRFReranker k, limit) needs no restart.
// For replay each leg is also run alone at the limit (Backend.Search with
// Explain) and fused offline by fusion.LanceDBRRF, LanceDB's formula and
// tie rule, under fusion.FormulaLanceDB (Factory.Fusion).
//
// Promotion (Factory.Verify) installs a Config, the query parameters an
// application passes (k, limit) and the table and columns they run on,
// and checks it on a sidecar of its own.
//
// Imports of ours: backend, backend/corpus, backend/embed, backend/fusion.
package lancedb
