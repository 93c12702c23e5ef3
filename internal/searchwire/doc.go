// Package searchwire is the JSON of the embedded engine's search API,
// written and read in one place: the body of POST /search (AppendResponse,
// DecodeResponse) and the answer lines of POST /search/batch
// (AppendAnswer, AppendAnswerError, DecodeAnswer), whose hits and
// candidates are tuples ([doc_id, score], [id, doc_id, score, rank]).
//
// It is a hot path (a replay's collection decodes 60,000 candidates, its
// verification 90,000 hits), so it writes and reads by hand, without
// reflection: AppendResponse writes the bytes encoding/json's Marshal
// writes, DecodeResponse reads what json.Unmarshal reads, and each leaves
// what it does not know to encoding/json.
//
// It is a leaf: it imports nothing else of fusiontune. Its functions are
// generic over the caller's types of a response (backend.SearchResponse,
// backend.Hit, fusion.Candidate, ...), which must have the fields and JSON
// tags of this package's Response, Hit, Candidate, Variant and Timings;
// the type parameters are inferred from the response.
//
// Imports of ours: none.
package searchwire
