// Package client is an HTTP client for any tune-serve-compatible search
// endpoint (GET /healthz, POST /search with backend.SearchRequest and
// backend.SearchResponse as JSON). It implements backend.Searcher.
//
// Imports of ours: backend, internal/searchwire.
package client
