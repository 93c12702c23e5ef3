package promote

import (
	"bytes"
	"testing"
)

// TestPromotionText: the lines tune apply, adapt --apply and rollback
// print, on stdout and stderr, with and without a backup.
func TestPromotionText(t *testing.T) {
	for _, tc := range []struct {
		name           string
		p              Promoted
		stdout, stderr string
		policy         string
	}{
		{"replaced", Promoted{Promotion: Promotion{Trial: "rrf-60", Run: "r1", Config: "prod.yaml", Backup: "b/1.yaml", Existed: true}, Primary: 0.61234},
			"promoted rrf-60 (run r1, primary 0.6123) to prod.yaml; backup b/1.yaml\n", "", "promoted rrf-60 (run r1) to prod.yaml; backup b/1.yaml"},
		{"created", Promoted{Promotion: Promotion{Trial: "rrf-60", Run: "r1", Config: "prod.yaml"}, Primary: 0.5},
			"promoted rrf-60 (run r1, primary 0.5000) to prod.yaml; backup (none: the file was new)\n", "created production config prod.yaml\n",
			"promoted rrf-60 (run r1) to prod.yaml; backup (none: the file was new)"},
	} {
		var stdout, stderr bytes.Buffer
		tc.p.WriteText(&stdout, &stderr)
		if stdout.String() != tc.stdout || stderr.String() != tc.stderr {
			t.Errorf("%s: stdout %q stderr %q, want %q %q", tc.name, stdout.String(), stderr.String(), tc.stdout, tc.stderr)
		}
		if got := tc.p.PolicyText(); got != tc.policy {
			t.Errorf("%s: PolicyText %q, want %q", tc.name, got, tc.policy)
		}
	}
	var stdout, stderr bytes.Buffer
	WriteRollback(&stdout, &stderr, Promotion{Action: "apply", Trial: "rrf-60", Run: "r1", Config: "prod.yaml", Status: StatusRolledBack, Error: "killed"})
	if stdout.String() != "rolled back the interrupted apply of rrf-60 (run r1): prod.yaml holds the previous config again\n" || stderr.String() != "tune: killed\n" {
		t.Errorf("interrupted rollback: stdout %q stderr %q", stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	WriteRollback(&stdout, &stderr, Promotion{Trial: "rrf-60", Run: "r1", Config: "prod.yaml", Status: StatusOK})
	if stdout.String() != "rolled back prod.yaml to the config before rrf-60 (run r1)\n" || stderr.Len() != 0 {
		t.Errorf("rollback: stdout %q stderr %q", stdout.String(), stderr.String())
	}
}
