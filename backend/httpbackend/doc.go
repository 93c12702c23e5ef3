// Package httpbackend drives a search service the tuner does not own.
//
// Apply renders the service's config file from a template (values escaped
// for YAML or JSON, see backend/render) after backing up the bytes that were
// there; Restart runs the user's restart command (an argv list, never a
// shell string); Ready polls a health URL, then waits a settle delay; Search
// fills a request template and reads hits, scores, the routing label and
// each retriever's candidate list out of the JSON response with gjson paths.
// Close puts the original config bytes back and restarts the service on
// them, so a sweep leaves the service as it found it.
//
// Searcher, the request and response half, is also what the process
// backend kind talks to.
//
// Imports of ours: backend, backend/fusion, backend/render,
// internal/atomicfile, internal/userfile.
package httpbackend
