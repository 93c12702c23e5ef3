package engine

import "runtime/debug"

// ServeGCPercent is the garbage collector's target (GOGC) of a process
// serving one engine, tune serve, when the GOGC environment variable is
// unset: the heap may grow to its live size plus this share before a
// collection. Go's default, 100, lets a cold build of 100k documents
// (about 520 MB live at its peak: the corpus, both retrievers' postings
// and the randomized SVD's working set) reach twice that; 40 keeps the
// peak under 1 GB for a few more collections.
const ServeGCPercent = 40

// TuneGC sets the collector's target to ServeGCPercent unless
// getenv("GOGC") is set (the user's setting wins), and returns the target
// in force. It is process-wide: for a process serving one engine.
func TuneGC(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		cur := debug.SetGCPercent(100)
		debug.SetGCPercent(cur)
		return cur
	}
	debug.SetGCPercent(ServeGCPercent)
	return ServeGCPercent
}
