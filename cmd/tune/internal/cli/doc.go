// Package cli is tune's declarative command-line layer: a table of
// commands (Command) dispatched wherever the command word stands, each
// command's flags declared as specs (Flag) bound to settings keys and
// parsed by one path (Spec.Parse: plain numbers only, flags after
// positional arguments, one-line usage errors with a did-you-mean), and
// the exit codes errors carry (Code).
//
// It knows nothing of tune's settings or library: cmd/tune declares its
// commands and flags and hands the parsed values to the library.
//
// Imports of ours: internal/plainnum, internal/suggest.
package cli
