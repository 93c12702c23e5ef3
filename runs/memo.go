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
	// records holds the trial records the Run wrote, decoded from the
	// bytes written (so equal to what reading the file gives): Trials
	// returns copies instead of reading them back.
	records map[int]TrialRecord
}

// memoInit guards the lazy creation of a Run's memo (a Run is made by a
// struct literal in several places).
var memoInit sync.Mutex

func (r *Run) memo() *resultMemo {
	memoInit.Lock()
	defer memoInit.Unlock()
	if r.memoized == nil {
		r.memoized = &resultMemo{results: map[int][]QueryResult{}, size: map[int]int{}, records: map[int]TrialRecord{}}
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

// forget drops the results and the record of trial index.
func (m *resultMemo) forget(index int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used -= m.size[index]
	delete(m.results, index)
	delete(m.size, index)
	delete(m.records, index)
}

// rememberRecord keeps trial t's record, which its file now holds (t is
// kept as given: callers pass one nothing else refers to).
func (m *resultMemo) rememberRecord(t TrialRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records[t.Index] = t
}

// recallRecord returns a copy of the kept record of trial index (sharing
// nothing with the memo: callers may change it).
func (m *resultMemo) recallRecord(index int) (TrialRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.records[index]
	if !ok {
		return TrialRecord{}, false
	}
	return t.Clone(), true
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
