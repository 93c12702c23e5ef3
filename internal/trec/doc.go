// Package trec reads and writes the TREC evaluation formats: qrels
// (`qid iter docno rel`) and runs (`qid Q0 docno rank score tag`), both
// whitespace-separated, one judgment or result per line.
//
// Parse errors name the file and line and say what was expected, as in
// `run.txt:12: score must be a number (got "x")`.
//
// It is a leaf: it imports nothing else of fusiontune, so that experiments
// (golden sets from qrels) and metrics/treceval (trec_eval scoring) can both
// read the formats without metrics importing upward.
//
// Imports of ours: internal/plainnum, internal/userfile.
package trec
