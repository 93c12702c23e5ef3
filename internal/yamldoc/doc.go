// Package yamldoc holds what every YAML reader of this project shares: it
// finds what yaml.Unmarshal silently ignores (every YAML file of this
// project — settings, experiment files, golden sets, engine configs —
// holds one document, and yaml.Unmarshal reads the first and drops the
// rest), and describes a node for a problem's "(got …)".
//
// Imports of ours: none.
package yamldoc
