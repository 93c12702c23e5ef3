package process

import (
	"context"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/backend"
)

var _ backend.BatchSearcher = (*Backend)(nil)

// SearchBatch runs reqs on the running service in one batch
// (backend.BatchSearcher) when its searcher has batch search (the
// embedded engine's client), and otherwise fails at once with
// backend.ErrBatchUnsupported. As with Search, a service whose process
// has exited fails the batch with an error wrapping
// backend.ErrServiceExited, and a batch in flight is cut short.
func (b *Backend) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	b.mu.Lock()
	done := b.done
	b.mu.Unlock()
	if done != nil {
		select {
		case <-done:
			return b.exited()
		default:
		}
	}
	s, err := b.dial()
	if err != nil {
		return fmt.Errorf("search batch: %w", err)
	}
	bs, ok := s.(backend.BatchSearcher)
	if !ok {
		return fmt.Errorf("search batch: %w", backend.ErrBatchUnsupported)
	}
	if done == nil {
		return bs.SearchBatch(ctx, reqs, answer)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-sctx.Done():
		}
	}()
	err = bs.SearchBatch(sctx, reqs, answer)
	if err != nil && ctx.Err() == nil {
		select {
		case <-done:
			return b.exited()
		case <-time.After(exitGrace):
		}
	}
	return err
}
