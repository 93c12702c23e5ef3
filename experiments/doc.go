// Package experiments reads what users author: golden sets (native JSON/YAML,
// TREC qrels and topics, BEIR folders) and experiment files, validating them
// with errors that name the file, line and field.
//
// Imports of ours: backend, backend/fusion, internal/hashmix,
// internal/paramtext, internal/plainnum, internal/suggest, internal/trec,
// internal/userfile, internal/yamldoc, metrics.
package experiments
