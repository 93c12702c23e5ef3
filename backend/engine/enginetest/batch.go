package enginetest

import (
	"context"
	"errors"

	"github.com/fusiontune/fusiontune/backend"
)

var _ backend.BatchSearcher = (*Backend)(nil)

// SearchBatch implements backend.BatchSearcher through the engine's POST
// /search/batch, with Alter and Fail applied to every request as Search
// applies them: a request Fail fails is answered with its error and not
// sent. With NoBatch set it fails with backend.ErrBatchUnsupported (a
// backend searched per query).
func (b *Backend) SearchBatch(ctx context.Context, reqs []backend.SearchRequest, answer func(backend.BatchAnswer)) error {
	b.mu.Lock()
	s := b.served
	b.mu.Unlock()
	if b.NoBatch {
		return backend.ErrBatchUnsupported
	}
	if s == nil {
		return errors.New("not started")
	}
	var sent []backend.SearchRequest
	var index []int
	for i, req := range reqs {
		if b.Alter != nil {
			b.Alter(&req)
		}
		if b.Fail != nil {
			if err := b.Fail(req); err != nil {
				answer(backend.BatchAnswer{Index: i, Err: err})
				continue
			}
		}
		sent, index = append(sent, req), append(index, i)
	}
	if len(sent) == 0 {
		return nil
	}
	return s.Client.SearchBatch(ctx, sent, func(a backend.BatchAnswer) {
		a.Index = index[a.Index]
		answer(a)
	})
}
