// Package reranktest runs a deterministic reranker on loopback for tests
// and demos: a real HTTP server speaking both /rerank shapes of package
// rerank, scoring a document by the share of the query's distinct words
// it contains, and counting the pairs it scored.
//
// Imports of ours: none.
package reranktest
