package studystore

import (
	"errors"
	"testing"
)

// TestRoom: a new trial may be created while fewer than budget trials are
// finished, running or queued; finished ones (complete or pruned) end the
// study at the budget; failed ones free their slot, until more than the
// budget have failed; a zero budget never runs out.
func TestRoom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		counts  map[string]int
		budget  int
		want    Outcome
		wantErr error
	}{
		{"no limit", map[string]int{stateComplete: 100, stateFail: 100}, 0, Claimed, nil},
		{"empty study", map[string]int{}, 3, Claimed, nil},
		{"room left", map[string]int{stateComplete: 1, stateRunning: 1}, 3, Claimed, nil},
		{"finished: complete and pruned count", map[string]int{stateComplete: 2, statePruned: 1}, 3, Done, nil},
		{"rest running or queued elsewhere", map[string]int{stateComplete: 1, stateRunning: 1, stateWaiting: 1}, 3, Busy, nil},
		{"a failed trial frees its slot", map[string]int{stateComplete: 2, stateFail: 3}, 3, Claimed, nil},
		{"too many failures", map[string]int{stateComplete: 2, stateFail: 4}, 3, Done, ErrTooManyFailures},
		{"done wins over failures", map[string]int{stateComplete: 3, stateFail: 9}, 3, Done, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := room(tc.counts, tc.budget, 7)
			if got != tc.want || !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("room = %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
