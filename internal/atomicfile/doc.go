// Package atomicfile writes files so that a reader sees either the old or
// the new bytes, never a part: a temp file in the same directory, then a
// rename.
//
// It is a leaf: it imports nothing else of fusiontune, so that runs and the
// backends that write config files (backend/process, backend/httpbackend)
// share it.
//
// Imports of ours: none.
package atomicfile
