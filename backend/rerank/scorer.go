package rerank

import (
	"context"
	"sync/atomic"
)

// Scorer scores documents through a Cache: only the (query, document)
// pairs the cache does not hold for the client's model go to the
// reranker, in one request per call. It is safe for concurrent use.
type Scorer struct {
	Client *Client
	Cache  *Cache // nil: no cache
	sent   atomic.Int64
	calls  atomic.Int64
}

// Scores returns the score of each document for query, in the order of
// docs.
func (s *Scorer) Scores(ctx context.Context, query string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	keys := make([]string, len(docs))
	var missing []string
	missAt := map[string]int{} // document text -> index in missing
	for i, d := range docs {
		keys[i] = Key(s.Client.Model, query, d)
		if s.Cache != nil {
			if v, ok := s.Cache.Get(keys[i]); ok {
				out[i] = v
				continue
			}
		}
		if _, ok := missAt[d]; !ok {
			missAt[d] = len(missing)
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	s.calls.Add(1)
	s.sent.Add(int64(len(missing)))
	got, err := s.Client.Score(ctx, query, missing)
	if err != nil {
		return nil, err
	}
	put := make(map[string]float64, len(missing))
	for i, d := range docs {
		if j, ok := missAt[d]; ok {
			out[i] = got[j]
			put[keys[i]] = got[j]
		}
	}
	if s.Cache != nil {
		if err := s.Cache.Put(put); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Sent returns the number of (query, document) pairs sent to the
// reranker so far.
func (s *Scorer) Sent() int64 { return s.sent.Load() }

// Requests returns the number of requests sent to the reranker so far.
func (s *Scorer) Requests() int64 { return s.calls.Load() }
