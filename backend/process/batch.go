package process

import (
	"context"
	"fmt"

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
	s, done, err := b.live("search batch")
	if err != nil {
		return err
	}
	bs, ok := s.(backend.BatchSearcher)
	if !ok {
		return fmt.Errorf("search batch: %w", backend.ErrBatchUnsupported)
	}
	return b.untilExit(ctx, done, func(ctx context.Context) error { return bs.SearchBatch(ctx, reqs, answer) })
}
