package tuner_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/tuner"
)

// TestSameError: errors differing only in the trial's name, numbers, ports
// and paths are the same error; errors of another kind are not.
func TestSameError(t *testing.T) {
	for _, tc := range []struct {
		name             string
		a, nameA, b, nmB string
		same             bool
	}{
		{"ports and counts", `3 of 8 queries failed (first: q1: Post "http://127.0.0.1:40211/search": connection refused)`, "k=20",
			`5 of 8 queries failed (first: q4: Post "http://127.0.0.1:38117/search": connection refused)`, "k=40", true},
		{"trial name inside", `trial "bad-1": ready: service exited before it was ready: exit status 1 (see its log)`, "bad-1",
			`trial "bad-22": ready: service exited before it was ready: exit status 1 (see its log)`, "bad-22", true},
		{"paths", "open /tmp/run-1/backend/001/engine.yaml: permission denied", "a",
			"open /tmp/run-1/backend/002/engine.yaml: permission denied", "b", true},
		{"another kind", "ready: service not ready after 2s", "a", "search: timed out after 300ms", "b", false},
		{"another status", `status 500: {"error":"index corrupted"}`, "a", "response is not JSON", "b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			na, nb := tuner.SameError(tc.a, tc.nameA), tuner.SameError(tc.b, tc.nmB)
			if (na == nb) != tc.same {
				t.Errorf("same = %v, want %v:\n%s\n%s", na == nb, tc.same, na, nb)
			}
		})
	}
}
