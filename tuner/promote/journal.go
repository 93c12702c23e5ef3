package promote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// The statuses of a journal line.
const (
	// StatusPending is a promotion's (or rollback's) intent, journaled
	// before the production config is switched.
	StatusPending    = "pending"
	StatusOK         = "ok"
	StatusRolledBack = "rolled_back"
)

// ErrUnfinished marks an error about a promotion that was interrupted
// (the process killed between its intent and its outcome).
var ErrUnfinished = errors.New("unfinished promotion")

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Unfinished returns the latest promotion or rollback of the production
// config whose intent is journaled without an outcome: the process that
// made it was killed, so the config on disk may be the new, unverified
// one. Nil when there is none. The caller holds the production config's
// lock, so no live process is still making it.
func (pr *Promoter) Unfinished() (*Promotion, error) {
	hist, err := ReadPromotions(pr.Journal)
	if err != nil {
		return nil, err
	}
	var open *Promotion
	for i, p := range hist {
		if p.Config != pr.ConfigPath {
			continue
		}
		switch {
		case p.Status == StatusPending:
			open = &hist[i]
		case open != nil && p.Time.Equal(open.Time) && p.Action == open.Action:
			open = nil
		}
	}
	return open, nil
}

// State describes where an unfinished promotion u left the production
// config, for a message: which config it holds and where the previous one
// is saved.
func (pr *Promoter) State(u Promotion) string {
	what := fmt.Sprintf("the %s of trial %q (run %s) to %s, started %s, did not finish (the process was killed)",
		u.Action, u.Trial, u.Run, pr.ConfigPath, u.Time.Format(time.RFC3339))
	now, err := os.ReadFile(pr.ConfigPath)
	var holds string
	switch {
	case errors.Is(err, os.ErrNotExist):
		holds = "it does not exist"
	case err != nil:
		holds = fmt.Sprintf("it cannot be read (%v)", err)
	case digest(now) == u.SHA256:
		holds = "it holds the new, unverified config"
	case u.Existed && digest(now) == u.PreviousSHA256:
		holds = "it holds the previous config again"
	default:
		holds = fmt.Sprintf("it holds neither the new nor the previous config (sha256 %s)", digest(now))
	}
	prev := "there was no config before it"
	if u.Existed {
		prev = "the previous config is saved in " + u.Backup
	}
	return what + ": " + holds + "; " + prev
}

// Recover completes the rollback of the unfinished promotion u: it puts
// back the previous config (from its backup; or removes the file the
// promotion created), brings the service up on it (Restore) and journals
// u's outcome as rolled_back. When the backup is missing or does not match
// its digest it changes nothing and returns an error (ErrUnfinished) that
// states exactly what is where.
func (pr *Promoter) Recover(ctx context.Context, u Promotion) (Promotion, error) {
	state := pr.State(u)
	out := u
	out.Status = StatusRolledBack
	out.Error = "interrupted: " + state + "; rolled back by a later tune command"
	mode := os.FileMode(0o644)
	if st, err := os.Stat(pr.ConfigPath); err == nil {
		mode = st.Mode().Perm()
	}
	if !u.Existed {
		if err := os.Remove(pr.ConfigPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return u, fmt.Errorf("%w: %s; removing it failed: %v", ErrUnfinished, state, err)
		}
		out.Removed = true
		if restore := pr.restoreFunc(); restore != nil {
			if err := restore(ctx); err != nil {
				out.Error += fmt.Sprintf("; undoing what it installed failed: %v", err)
				return out, errors.Join(fmt.Errorf("removed the config an interrupted %s created, but undoing what it installed failed: %w", u.Action, err), pr.journal(out))
			}
		}
		return out, pr.journal(out)
	}
	old, err := os.ReadFile(u.Backup)
	if err != nil {
		return u, fmt.Errorf("%w: %s, which cannot be read (%v): restore the production config by hand", ErrUnfinished, state, err)
	}
	if u.PreviousSHA256 != "" && digest(old) != u.PreviousSHA256 {
		return u, fmt.Errorf("%w: %s, but the backup's sha256 is %s, not the %s journaled: restore the production config by hand", ErrUnfinished, state, digest(old), u.PreviousSHA256)
	}
	if now, err := os.ReadFile(pr.ConfigPath); err != nil || !bytes.Equal(now, old) {
		if err := runs.WriteFileAtomic(pr.ConfigPath, old, mode); err != nil {
			return u, fmt.Errorf("%w: %s; restoring it failed: %v", ErrUnfinished, state, err)
		}
	}
	rerr := pr.restoreFunc()(ctx)
	if rerr != nil {
		out.Error += fmt.Sprintf("; the restored config did not come back up: %v", rerr)
	}
	if err := pr.journal(out); err != nil {
		return out, errors.Join(rerr, err)
	}
	if rerr != nil {
		return out, fmt.Errorf("previous config restored after an interrupted %s, but it did not come back up: %w", u.Action, rerr)
	}
	return out, nil
}

// restoreFunc is Restore, else Verify: what brings the service back on the
// config now on disk (or, with none, undoes what a promotion installed).
func (pr *Promoter) restoreFunc() func(context.Context) error {
	if pr.Restore != nil {
		return pr.Restore
	}
	return pr.Verify
}
