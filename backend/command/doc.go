// Package command is the "command" backend kind: a search engine called as
// a command-line program, one process per query
// (["./cupertino", "search", "{query}", "--limit", "{k}"]). The argv is
// run directly, never through a shell; each query has a timeout, the
// processes in flight are bounded, and the results are read from stdout by
// a regular expression or, when the program prints JSON, by gjson paths
// (the http kind's response mapping). The kind is read-only: it has no
// config to write and nothing to restart, so it serves evaluation
// (tune check-quality) and trials whose parameters are argv placeholders.
//
// Imports of ours: backend, backend/httpbackend.
package command
