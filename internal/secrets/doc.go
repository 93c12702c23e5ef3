// Package secrets recognizes settings and environment variables that hold
// secrets (API keys, tokens), so that no config, snapshot or log keeps one.
//
// Imports of ours: none.
package secrets
