package promote

import "testing"

// TestRollbackSummary: the four outcomes of a rollback, worded for the
// user, the interrupted ones with their error.
func TestRollbackSummary(t *testing.T) {
	base := Promotion{Action: "apply", Trial: "rrf-60", Run: "r1", Config: "prod.yaml"}
	for _, tc := range []struct {
		name        string
		status, err string
		removed     bool
		want        string
		interrupted bool
	}{
		{"restored", StatusOK, "", false, "rolled back prod.yaml to the config before rrf-60 (run r1)", false},
		{"removed", StatusOK, "", true, "rolled back prod.yaml: removed it (the promotion of rrf-60, run r1, created it)", false},
		{"interrupted", StatusRolledBack, "killed", false, "rolled back the interrupted apply of rrf-60 (run r1): prod.yaml holds the previous config again", true},
		{"interrupted, created", StatusRolledBack, "killed", true, "rolled back the interrupted apply of rrf-60 (run r1): removed prod.yaml, which it created", true},
	} {
		p := base
		p.Status, p.Error, p.Removed = tc.status, tc.err, tc.removed
		if got, interrupted := RollbackSummary(p); got != tc.want || interrupted != tc.interrupted {
			t.Errorf("%s: %q, %v; want %q, %v", tc.name, got, interrupted, tc.want, tc.interrupted)
		}
	}
}
