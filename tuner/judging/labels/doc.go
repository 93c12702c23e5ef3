// Package labels is the label store: relevance labels for (dataset, query,
// document) pairs from judges other than the golden set (people, an LLM,
// another qrels file), kept in a SQLite file or a PostgreSQL database.
//
// Labels are appended, never updated or deleted: a correction is a newer
// label, and an undo (Withdraw) is a row that withdraws an earlier one,
// which stays in History. Latest returns the newest label of each judge for each pair, and
// Effective merges them with the golden set's own judgments (gold wins,
// then human > file > llm > implicit, then the newest, then the judge
// name). Several processes may append to one store at once; none loses a
// label.
//
// The store is opened from a URL:
//
//	labels.db                     a SQLite file (relative to the working directory)
//	sqlite:labels.db              the same
//	sqlite:///labels.db           the same, in the form studies use (four slashes: absolute)
//	postgres://user@host:5432/db  PostgreSQL; the password from PGPASSWORD or the URL
//
// Labels travel as TREC qrels (grade only) or as the native JSONL, one
// Label per line (ReadJSONL, WriteJSONL).
//
// Imports of ours: internal/jsonkeys, internal/sqldb, internal/trec.
package labels
