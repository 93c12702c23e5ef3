package llm

import (
	"fmt"
	"sync"

	"github.com/fusiontune/fusiontune/tuner/judging/judge"
)

// ErrBudget is wrapped when the budget would be exceeded by the next call:
// judging stops there, and the labels judged so far are returned. It is
// judge.ErrBudget, which judge.JudgeInto tells apart from failures.
var ErrBudget = judge.ErrBudget

// Budget bounds what a judging run may spend; 0 means no bound.
type Budget struct {
	// Calls is the most HTTP requests (retries included).
	Calls int64
	// Tokens is the most tokens (prompt and answer, as the server reports
	// them; a call without usage counts at its bound).
	Tokens int64
}

// Verdict says whether b covers the calls e estimates: "none set",
// "enough for every call", or that judging stops when it is spent.
func (b Budget) Verdict(e Estimate) string {
	switch {
	case b.Calls == 0 && b.Tokens == 0:
		return "budget: none set"
	case (b.Calls == 0 || int64(e.Calls) <= b.Calls) && (b.Tokens == 0 || e.TokensBound <= b.Tokens):
		return fmt.Sprintf("budget: calls %s, tokens %s: enough for every call", orUnbounded(b.Calls), orUnbounded(b.Tokens))
	default:
		return fmt.Sprintf("budget: calls %s, tokens %s: judging stops when it is spent (the pool's first pairs are judged first)", orUnbounded(b.Calls), orUnbounded(b.Tokens))
	}
}

func orUnbounded(v int64) string {
	if v == 0 {
		return "unbounded"
	}
	return fmt.Sprint(v)
}

// Usage is what a judging run spent.
type Usage struct {
	Calls, Tokens int64
	// CacheHits are pairs answered from the cache; Labels the labels
	// returned.
	CacheHits, Labels int
	// OverBound counts calls whose reported usage exceeded their bound
	// (then the budget can be exceeded; with byte-level tokenizers, never).
	OverBound int
}

// meter enforces a Budget across concurrent calls: tokens are reserved at
// a call's bound before it starts and charged at the reported usage after.
type meter struct {
	mu       sync.Mutex
	settled  *sync.Cond // signalled when a call settles
	budget   Budget
	used     Usage
	reserved int64
}

func newMeter(b Budget) *meter {
	m := &meter{budget: b}
	m.settled = sync.NewCond(&m.mu)
	return m
}

// reserve admits one call of at most bound tokens, or wraps ErrBudget. A
// call that does not fit beside the calls in flight waits for them to
// settle (they usually cost less than their bound); it fails when it does
// not fit with none in flight.
func (m *meter) reserve(bound int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		if m.budget.Calls > 0 && m.used.Calls+1 > m.budget.Calls {
			return fmt.Errorf("%w: %d of %d calls made", ErrBudget, m.used.Calls, m.budget.Calls)
		}
		if m.budget.Tokens == 0 || m.used.Tokens+m.reserved+bound <= m.budget.Tokens {
			break
		}
		if m.reserved == 0 {
			return fmt.Errorf("%w: %d of %d tokens used, the next call may take %d",
				ErrBudget, m.used.Tokens, m.budget.Tokens, bound)
		}
		m.settled.Wait()
	}
	m.used.Calls++
	m.reserved += bound
	return nil
}

// settle ends a call admitted with bound: it used actual tokens (negative:
// unknown, charged at the bound).
func (m *meter) settle(bound, actual int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reserved -= bound
	if actual < 0 {
		actual = bound // unknown usage counts at the bound
	}
	if actual > bound {
		// Only a tokenizer using more tokens than bytes gets here; the
		// usage is charged as reported and counted.
		m.used.OverBound++
	}
	m.used.Tokens += actual
	m.settled.Broadcast()
}

func (m *meter) usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}
