// Package llmtest is a small OpenAI-compatible chat completions server for
// tests and benchmarks of the LLM judge: it stands in for a remote model at
// the network boundary and answers by a fixed rule, so that the judge's
// client, cache, budget and retries are tested as they are.
//
// The rule: a document's grade is the number of distinct query terms
// (lower-cased words of three or more letters) its title and text contain,
// capped at the prompt's top grade (2 when the prompt offers HIGH /
// PARTIAL / NOT_RELEVANT, which the answer then uses, else 3). A server
// may also answer with known noise (Noise) or malformed answers first
// (SetMalformed), to test what the judge does with them.
//
// Imports of ours: none.
package llmtest
