// Package yamldoc holds what every YAML reader of this project shares: it
// finds what yaml.Unmarshal silently ignores (every YAML file of this
// project — settings, experiment files, golden sets, engine configs —
// holds one document, and yaml.Unmarshal reads the first and drops the
// rest), describes a node for a problem's "(got …)", and checks a document
// against the Go type it decodes into (Schema: known keys, strict numbers,
// no literal secrets) before a decoder that would truncate 2.5 to 2 sees it.
//
// Imports of ours: internal/plainnum, internal/secrets, internal/suggest.
package yamldoc
