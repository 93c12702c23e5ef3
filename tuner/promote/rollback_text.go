package promote

import "fmt"

// RollbackSummary is what tune rollback reports of a rollback's journal
// record p: the line for stdout, and whether it undid an interrupted
// promotion (whose p.Error then goes to stderr).
func RollbackSummary(p Promotion) (summary string, interrupted bool) {
	if p.Status == StatusRolledBack { // an interrupted promotion, undone
		if p.Removed {
			return fmt.Sprintf("rolled back the interrupted %s of %s (run %s): removed %s, which it created", p.Action, p.Trial, p.Run, p.Config), true
		}
		return fmt.Sprintf("rolled back the interrupted %s of %s (run %s): %s holds the previous config again", p.Action, p.Trial, p.Run, p.Config), true
	}
	if p.Removed {
		return fmt.Sprintf("rolled back %s: removed it (the promotion of %s, run %s, created it)", p.Config, p.Trial, p.Run), false
	}
	return fmt.Sprintf("rolled back %s to the config before %s (run %s)", p.Config, p.Trial, p.Run), false
}
