// Package backend defines the search backend the tuner drives and the wire
// types of a search. Implementations live in subpackages: the embedded hybrid
// engine, a process backend and a generic HTTP backend.
//
// It also holds the one parameter table (Param, LookupParam, ParamTable):
// every trial parameter's name, kind, stage, range check and doc line, and
// the typed accessors (FloatValue, IntValue, ...) through which every layer
// reads a parameter's value. Experiment files derive their parameters from
// it; each adapter declares the names it takes, all of them the table's.
//
// Imports of ours: backend/fusion, backend/rerank, internal/paramtext.
package backend
