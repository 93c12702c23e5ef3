package promote

import (
	"fmt"
	"io"
)

// WriteText writes what tune apply and tune --apply-best report of a
// promotion: the promotion line to w, and to log that the production
// config was created when there was none.
func (p *Promoted) WriteText(w, log io.Writer) {
	if !p.Existed {
		fmt.Fprintf(log, "created production config %s\n", p.Config)
	}
	fmt.Fprintf(w, "promoted %s (run %s, primary %.4f) to %s; backup %s\n", p.Trial, p.Run, p.Primary, p.Config, p.backup())
}

// PolicyText is what tune adapt --apply reports of a policy's promotion.
func (p Promotion) PolicyText() string {
	return fmt.Sprintf("promoted %s (run %s) to %s; backup %s", p.Trial, p.Run, p.Config, p.backup())
}

// WriteRollback writes what tune rollback reports of a rollback's journal
// record p (RollbackSummary): the summary to w and, for an interrupted
// promotion it undid, its error to log.
func WriteRollback(w, log io.Writer, p Promotion) {
	summary, interrupted := RollbackSummary(p)
	if interrupted {
		fmt.Fprintf(log, "tune: %s\n", p.Error)
	}
	fmt.Fprintln(w, summary)
}

// backup is the promotion's backup file, or why there is none.
func (p Promotion) backup() string {
	if p.Backup == "" {
		return "(none: the file was new)"
	}
	return p.Backup
}
