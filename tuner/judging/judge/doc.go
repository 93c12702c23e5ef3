// Package judge gives relevance labels to (query, document) pairs that the
// golden set has not judged: the Judge interface and its pairs, the judges
// that need no network (File: another qrels file; the human round trip:
// ExportPairs and ReadFilled), pool files (ReadPool), agreement between
// judges (Agreement: confusion matrix and weighted Cohen's kappa), and
// ensembles of judges whose vote is the label (Ensemble, Combine). The LLM
// judge is the subpackage llm. Labels go to the store of
// experiments/labels.
//
// Imports of ours: internal/jsonkeys, internal/trec, tuner/judging/labels.
package judge
