package runs

import "sync"

// MemoBudget bounds the per-query results a Run keeps in memory, in bytes
// of their encoded lines (what trials/NNN.queries.jsonl holds): a trial
// recorded or read past it is read from disk again when asked for.
const MemoBudget = 128 << 20

// resultMemo holds the per-query results of the trials a Run recorded or
// read, so that the statistics, the leaderboard, the latency step and the
// report after the last trial do not decode the files the run has just
// written (they read every trial's results several times).
type resultMemo struct {
	mu      sync.Mutex
	results map[int][]QueryResult
	size    map[int]int
	used    int
}

// memoInit guards the lazy creation of a Run's memo (a Run is made by a
// struct literal in several places).
var memoInit sync.Mutex

func (r *Run) memo() *resultMemo {
	memoInit.Lock()
	defer memoInit.Unlock()
	if r.memoized == nil {
		r.memoized = &resultMemo{results: map[int][]QueryResult{}, size: map[int]int{}}
	}
	return r.memoized
}

// remember keeps the results of trial index (their encoded size bytes)
// while the budget allows.
func (m *resultMemo) remember(index int, results []QueryResult, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used -= m.size[index]
	delete(m.results, index)
	delete(m.size, index)
	if m.used+bytes > MemoBudget {
		return
	}
	m.results[index] = results
	m.size[index] = bytes
	m.used += bytes
}

// forget drops the results of trial index.
func (m *resultMemo) forget(index int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used -= m.size[index]
	delete(m.results, index)
	delete(m.size, index)
}

// recall returns a copy of the kept results of trial index (callers may
// reorder or replace elements; the QueryResults themselves are shared and
// must not be changed).
func (m *resultMemo) recall(index int) ([]QueryResult, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.results[index]
	if !ok {
		return nil, false
	}
	return append([]QueryResult(nil), r...), true
}
