package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For runs f(0..n-1) on GOMAXPROCS goroutines (at most n) and waits for
// all of them; f must be safe to call concurrently.
func For(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}
