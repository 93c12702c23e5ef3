// Package weaviate drives a Weaviate server (v1.35.2) for tuning: it
// starts weaviate-server as a local process with bring-your-own vectors
// (Server), creates a class per index-time group and loads it with the
// tuner's own document vectors (Client), runs hybrid queries with alpha
// and fusionType per request, changes BM25 k1 and b live through the
// schema, and sets the per-leg candidate depth (QUERY_HYBRID_MAXIMUM_RESULTS)
// by restarting the server.
//
// For replay it issues each leg alone (a bm25 query and a nearVector query
// of the same depth) and fuses them offline with fusion.WeaviateHybrid,
// Weaviate's own formulas computed in float32 as the engine does, so that
// the offline ranking and scores equal the live hybrid answer.
//
// Servers it starts keep BM25 on Weaviate's exact inverted index
// (ExactBM25Env): under BlockMax WAND, the default, a leg's top k depends
// on the limit.
//
// Attach mode (Options.Class) tunes an existing class of the user's
// server instead, read-only: query vectors from an OpenAI-compatible
// endpoint, a file or the class's vectorizer, query-time parameters only,
// legs collected at the server's depth, and a promotion that writes the
// query parameters and the GraphQL query (Attached).
//
// Translate maps an experiment's parameters, named either as Weaviate
// names them (alpha, fusionType) or as the common fusion settings
// (fusion.method, fusion.weights.*, fusion.k), to a hybrid query, and
// rejects what Weaviate cannot express (fusion.k other than 59, a
// normalization other than min_max, ...).
//
// Promotion (Factory.Verify) installs a Production config: the JSON file
// an application reads to build its hybrid queries (class, alpha,
// fusionType, model), with the class's BM25 k1 and b set on the server and
// its depth checked; the production class is one of its own
// (ProductionClass), which sweeps leave alone.
//
// Imports of ours: backend, backend/corpus, backend/embed, backend/fusion,
// internal/userfile.
package weaviate
