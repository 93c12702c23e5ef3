package engine

import (
	"runtime/debug"
	"sync"
)

// BuildGCPercent is the garbage collector's target (GOGC) of a process
// serving one engine, tune serve, while it builds its index, when the
// GOGC environment variable is unset: the heap may grow to its live size
// plus this share before a collection. Go's default, 100, lets a cold
// build of 100k documents (about 520 MB live at its peak: the corpus,
// both retrievers' postings and the randomized SVD's working set) reach
// twice that; 40 keeps the peak under 1 GB for a few more collections.
// Serving goes back to the previous target: on a small index 40 makes
// collections so frequent that searches slow down (the demo sweep's
// search time grew by a fifth).
const BuildGCPercent = 40

// BuildGC sets the collector's target to BuildGCPercent unless
// getenv("GOGC") is set (the user's setting wins, and restore does
// nothing); restore puts back the target in force before, once however
// often it is called. It is process-wide: for a process serving one
// engine, restored when the engine is ready (ServeConfig.OnReady).
func BuildGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(BuildGCPercent)
	return sync.OnceFunc(func() { debug.SetGCPercent(prev) })
}
