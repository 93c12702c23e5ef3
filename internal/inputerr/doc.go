// Package inputerr marks errors caused by the user's input (a bad flag, a
// file that does not parse, a run to resume made from another experiment
// file): the command exits 2 for them, 1 for every other failure. The
// library returns them as they are; the command layer reads the mark
// through the error chain (ExitCode).
//
// Imports of ours: none.
package inputerr
