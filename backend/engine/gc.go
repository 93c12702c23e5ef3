package engine

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// BuildGCPercent is the garbage collector's target (GOGC) of a process
// serving one engine, tune serve, while it builds its index, when the
// GOGC environment variable is unset: the heap may grow to its live size
// plus this share before a collection. Go's default, 100, lets a cold
// build of 100k documents reach twice its live size; 40 keeps loading
// the corpus and building bm25 under that for a few more collections.
// Serving goes back to the previous target: on a small index 40 makes
// collections so frequent that searches slow down (the demo sweep's
// search time grew by a fifth).
const BuildGCPercent = 40

// FitGCPercent is the collector's target while an embedder fits on the
// corpus under BuildGC: the fit's working set (the document-term matrix
// and the randomized SVD's blocks, about 500 MB live beside a 100k
// corpus) is made of a few large arrays that collections do not scan,
// so collecting at a tenth more costs no CPU time a run can tell apart
// and keeps a 100k build under 700 MB and a million documents under
// 6 GB. It applies to the fit alone: loading a corpus at 10 would collect
// far more often while the heap grows from nothing.
const FitGCPercent = 10

// buildGC is true while BuildGC's target is in force.
var buildGC atomic.Bool

// BuildGC sets the collector's target to BuildGCPercent unless
// getenv("GOGC") is set (the user's setting wins, and restore does
// nothing); restore puts back the target in force before, once however
// often it is called. It is process-wide: for a process serving one
// engine, restored when the engine is ready (ServeConfig.OnReady). While
// it is in force, a build that fits an embedder on the corpus does so at
// FitGCPercent (see beforeFit).
func BuildGC(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(BuildGCPercent)
	buildGC.Store(true)
	return sync.OnceFunc(func() {
		buildGC.Store(false)
		debug.SetGCPercent(prev)
	})
}

// beforeFit readies the process for fitting an embedder on the corpus
// while BuildGC is in force: the collector's target becomes FitGCPercent
// (until restore), and freed heap memory goes back to the operating system,
// since the spans the bm25 build freed are not the contiguous runs the
// fit's large arrays need and would otherwise stay resident beside them
// (freed is false when bm25 built nothing).
func beforeFit(freed bool) {
	if !buildGC.Load() {
		return
	}
	debug.SetGCPercent(FitGCPercent)
	if freed {
		debug.FreeOSMemory()
	}
}
