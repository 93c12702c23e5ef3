// Package backend defines the search backend the tuner drives and the wire
// types of a search. Implementations live in subpackages: the embedded hybrid
// engine, a process backend and a generic HTTP backend.
package backend
