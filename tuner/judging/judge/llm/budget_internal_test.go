package llm

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestBudgetFirst: the first budget error leads (callers branch on it),
// later budget errors are dropped, other errors keep their order.
func TestBudgetFirst(t *testing.T) {
	b1 := fmt.Errorf("batch 3: %w", ErrBudget)
	b2 := fmt.Errorf("batch 5: %w", ErrBudget)
	e1, e2 := errors.New("batch 1: timeout"), errors.New("batch 2: not JSON")
	for _, tc := range []struct {
		name string
		errs []error
		want []error
	}{
		{"no budget error", []error{e1, e2}, []error{e1, e2}},
		{"budget error moved first", []error{e1, b1, e2}, []error{b1, e1, e2}},
		{"only the first budget error", []error{b1, e1, b2}, []error{b1, e1}},
		{"budget alone", []error{b2}, []error{b2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetFirst(tc.errs); !slices.Equal(got, tc.want) {
				t.Errorf("budgetFirst = %v, want %v", got, tc.want)
			}
		})
	}
}
