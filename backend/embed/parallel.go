package embed

import (
	"context"
	"runtime"
	"sync"
)

// embedEach fills out[i] for every i on GOMAXPROCS goroutines (items
// interleaved), each calling newWorker once for its own scratch state. It
// stops early, returning ctx's error, when ctx ends. Every out[i] depends
// only on item i, so the result does not depend on the scheduling.
func embedEach(ctx context.Context, out [][]float32, newWorker func() func(i int) []float32) error {
	parts := max(1, min(runtime.GOMAXPROCS(0), len(out)/32))
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			embed := newWorker()
			for i := p; i < len(out); i += parts {
				if (i/parts)%64 == 0 && ctx.Err() != nil {
					return
				}
				out[i] = embed(i)
			}
		}(p)
	}
	wg.Wait()
	return ctx.Err()
}
