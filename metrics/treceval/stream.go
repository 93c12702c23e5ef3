package treceval

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// ErrNotGrouped is returned by Stream.Add when a query comes back after
// other queries: a stream scores each query as soon as it is complete, so
// its lines must be contiguous. Read such a run whole and call Evaluate.
var ErrNotGrouped = errors.New("run lines of a query are not contiguous")

// Stream evaluates a run query by query, as trec.ScanRun delivers it, so a
// run never has to sit in memory whole. Queries are scored by a pool of
// workers while the caller keeps reading.
type Stream struct {
	qrels trec.Judgments
	o     Options
	res   *Result

	jobs chan job
	wg   sync.WaitGroup
	pool sync.Pool // *trec.ResultBuffer

	mu     sync.Mutex
	done   map[string]QueryValues // query id -> values
	errs   map[string]error       // query id -> error
	added  map[string]bool
	closed bool
}

type job struct {
	id      string
	results *trec.ResultBuffer
}

// NewStream starts workers for evaluating the selected measures; call Add
// for each query and then Result (or Close to abandon it).
func NewStream(qrels trec.Judgments, sel Selection, o Options) (*Stream, error) {
	res, err := newResult(sel)
	if err != nil {
		return nil, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &Stream{qrels: qrels, o: o, res: res, jobs: make(chan job, 2*workers),
		done: map[string]QueryValues{}, errs: map[string]error{}, added: map[string]bool{}}
	s.pool.New = func() any { return new(trec.ResultBuffer) }
	for range workers {
		s.wg.Add(1)
		go s.work()
	}
	return s, nil
}

func (s *Stream) work() {
	defer s.wg.Done()
	var q query
	for j := range s.jobs {
		err := q.prepare(j.id, j.results.Results, s.qrels[j.id], s.o.RelevanceLevel)
		var vals QueryValues
		if err == nil {
			vals = s.res.values(&q)
		}
		s.pool.Put(j.results) // q's document ids, views of it, are not looked at again
		s.mu.Lock()
		if err != nil {
			s.errs[j.id] = err
		} else {
			s.done[j.id] = vals
		}
		s.mu.Unlock()
	}
}

// Add hands over all results of query id; results and their document ids
// may be reused by the caller once Add returns (Add copies them, so it
// takes what trec.ScanRunTransient hands on). A query without judgments is
// recorded in Result.Skipped. Adding a query twice returns ErrNotGrouped.
func (s *Stream) Add(id string, results []trec.Result) error {
	if s.added[id] {
		return fmt.Errorf("query %q: %w", id, ErrNotGrouped)
	}
	s.added[id] = true
	if _, ok := s.qrels[id]; !ok {
		s.res.Skipped = append(s.res.Skipped, id)
		return nil
	}
	buf := s.pool.Get().(*trec.ResultBuffer)
	buf.Set(results)
	s.jobs <- job{id: id, results: buf}
	return nil
}

// Close stops the workers without producing a result.
func (s *Stream) Close() {
	if !s.closed {
		s.closed = true
		close(s.jobs)
		s.wg.Wait()
	}
}

// Result waits for the queries added, evaluates the qrels queries never
// added when Options.Complete is set, and aggregates. runID is the run's
// tag, printed by the runid measure. The first error in query id order
// wins, so failures are reported deterministically.
func (s *Stream) Result(runID string) (*Result, error) {
	if s.closed {
		return nil, errors.New("treceval: stream already closed")
	}
	if s.o.Complete {
		for id := range s.qrels {
			if !s.added[id] {
				s.added[id] = true
				buf := s.pool.Get().(*trec.ResultBuffer)
				buf.Set(nil)
				s.jobs <- job{id: id, results: buf}
			}
		}
	}
	s.Close()
	if len(s.errs) > 0 {
		ids := make([]string, 0, len(s.errs))
		for id := range s.errs {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return nil, s.errs[ids[0]]
	}
	r := s.res
	r.RunID = runID
	ids := make([]string, 0, len(s.done))
	for id := range s.done {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	r.Queries = make([]QueryValues, len(ids))
	for i, id := range ids {
		r.Queries[i] = s.done[id]
	}
	slices.Sort(r.Skipped)
	r.aggregate()
	return r, nil
}
