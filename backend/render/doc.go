// Package render fills config files and search requests from Go
// text/template templates for backends the tuner does not build itself.
//
// Every value a template prints is encoded for the target format (YAML,
// JSON or a URL query), so a parameter value can never change the structure
// of the document: a string becomes one quoted scalar with every character
// outside printable ASCII escaped, a list or map becomes a JSON flow
// collection, a number stays a number. Templates write values bare
// ({{ .fusion.k }}, not "{{ .fusion.k }}"); they cannot reach a raw string.
// After rendering, the document is parsed back, so a template that produces
// invalid YAML or JSON fails before any backend is touched.
//
// In a template, parameters are reached by their dotted names as fields
// ({{ .fusion.weights.bm25 }}) or with the param function
// ({{ param "fusion.k" }}, {{ param "fusion.k" 60 }} with a default); a
// missing parameter without a default is an error. {{ if has "custom.boost" }}
// tests presence and {{ if is .fusion.method "rrf" }} compares a value.
// {{ abs "corpus.jsonl" }} is a path made absolute against the tuner's
// working directory (and escaped like any value), for a config rendered
// into another directory.
//
// Imports of ours: none.
package render
