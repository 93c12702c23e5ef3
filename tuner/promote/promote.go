package promote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

// Promotion is one line of runs_dir/promotions.jsonl.
type Promotion struct {
	Time   time.Time      `json:"time"`
	Action string         `json:"action"` // promote or rollback
	Run    string         `json:"run,omitempty"`
	Trial  string         `json:"trial,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	Config string         `json:"config"`           // the production config path
	Backup string         `json:"backup,omitempty"` // where the previous bytes were saved
	// Existed is false when there was no production config before.
	Existed bool `json:"existed"`
	// Removed is true for a rollback that removed the production config
	// because the promotion it undid had created it.
	Removed bool   `json:"removed,omitempty"`
	Forced  bool   `json:"forced,omitempty"`
	Reason  string `json:"reason,omitempty"` // why a forced promotion was allowed
	// Status is pending (the intent, journaled before the switch), then
	// ok or rolled_back (failed and restored) in a second line for the
	// same Time and Action (see Unfinished).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// SHA256 is the digest of the bytes installed, PreviousSHA256 of those
	// they replace: they tell which config an interrupted promotion left.
	SHA256         string `json:"sha256,omitempty"`
	PreviousSHA256 string `json:"previous_sha256,omitempty"`
}

// Promoter writes a production config safely: a backup first, then an
// atomic replacement (temp file, fsync, rename), then Verify; if Verify
// fails, the backup is restored and Verify runs again on it.
type Promoter struct {
	ConfigPath string
	BackupDir  string
	// Journal is promotions.jsonl.
	Journal string
	// Verify restarts the production service on the config now on disk,
	// waits until it is ready and runs a smoke evaluation.
	Verify func(ctx context.Context) error
	// Restore brings the service back on the restored previous config
	// after a failed Verify: a restart and a health check, without the
	// promoted trial's smoke comparison (the old config scores
	// differently). Nil means Verify.
	Restore func(ctx context.Context) error
	Now     func() time.Time
}

// ErrNothingToRollBack is returned by Rollback when no promotion is on
// record.
var ErrNothingToRollBack = errors.New("no promotion to roll back")

// Promote installs config (the bytes of the new production config). The
// record p is completed and appended to the journal whatever the outcome.
func (pr *Promoter) Promote(ctx context.Context, config []byte, p Promotion) (Promotion, error) {
	p.Action = "promote"
	return pr.install(ctx, config, p)
}

func (pr *Promoter) install(ctx context.Context, config []byte, p Promotion) (Promotion, error) {
	now := time.Now
	if pr.Now != nil {
		now = pr.Now
	}
	p.Time = now().UTC()
	p.Config = pr.ConfigPath
	old, mode, err := pr.backUp(&p)
	if err != nil {
		return p, err
	}
	p.SHA256 = digest(config)
	// The intent goes to the journal before the switch: a process killed
	// from here on leaves a pending line that the next tune command
	// finds (Unfinished) and undoes (Recover).
	p.Status = StatusPending
	if err := pr.journal(p); err != nil {
		return p, fmt.Errorf("%s: %w", p.Action, err)
	}
	if err := runs.WriteFileAtomic(pr.ConfigPath, config, mode); err != nil {
		p.Status, p.Error = StatusRolledBack, err.Error()
		if jerr := pr.journal(p); jerr != nil {
			err = errors.Join(err, jerr)
		}
		return p, fmt.Errorf("%s: write production config: %w", p.Action, err)
	}
	verr := pr.Verify(ctx)
	if verr == nil {
		p.Status = StatusOK
		return p, pr.journal(p)
	}
	return pr.restore(p, old, mode, verr)
}

// backUp reads the production config (p.Existed says whether there is
// one), copies it into the backup directory (p.Backup) and records its
// digest, or creates the config's directory when there is none. It
// returns the old bytes and the file mode the new config takes.
func (pr *Promoter) backUp(p *Promotion) ([]byte, os.FileMode, error) {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(pr.ConfigPath); err == nil {
		mode = st.Mode().Perm()
	}
	old, err := os.ReadFile(pr.ConfigPath)
	switch {
	case err == nil:
		p.Existed = true
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, mode, fmt.Errorf("%s: read production config: %w", p.Action, err)
	}
	if err := os.MkdirAll(pr.BackupDir, 0o755); err != nil {
		return nil, mode, fmt.Errorf("%s: %w", p.Action, err)
	}
	if !p.Existed {
		p.Backup = ""
		if err := os.MkdirAll(filepath.Dir(pr.ConfigPath), 0o755); err != nil {
			return nil, mode, fmt.Errorf("%s: create the production config's directory: %w", p.Action, err)
		}
		return old, mode, nil
	}
	p.Backup = filepath.Join(pr.BackupDir, p.Time.Format("20060102T150405.000000000Z")+"-"+filepath.Base(pr.ConfigPath))
	if err := runs.WriteFileAtomic(p.Backup, old, mode); err != nil {
		return nil, mode, fmt.Errorf("%s: back up production config: %w", p.Action, err)
	}
	p.PreviousSHA256 = digest(old)
	return old, mode, nil
}

// restore puts back what was there before a promotion whose verification
// failed with verr, byte for byte, brings the service back on it and
// journals the rollback.
func (pr *Promoter) restore(p Promotion, old []byte, mode os.FileMode, verr error) (Promotion, error) {
	p.Status = StatusRolledBack
	p.Error = verr.Error()
	var rerr error
	if p.Existed {
		rerr = runs.WriteFileAtomic(pr.ConfigPath, old, mode)
	} else {
		rerr = os.Remove(pr.ConfigPath)
	}
	if rerr == nil {
		// A fresh context: the restore must run even when ctx was cancelled.
		// With no previous config the kind's Restore undoes what the
		// promotion installed besides the file (removeCreated).
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		rerr = pr.restoreFunc()(rctx)
		cancel()
		if rerr != nil {
			rerr = fmt.Errorf("the restored config did not come back up: %w", rerr)
		}
	}
	if jerr := pr.journal(p); jerr != nil && rerr == nil {
		rerr = jerr
	}
	if rerr != nil {
		return p, fmt.Errorf("%s failed (%v) and restoring the previous config failed too: %w", p.Action, verr, rerr)
	}
	return p, fmt.Errorf("%s failed, previous config restored: %w", p.Action, verr)
}

// Rollback reinstalls the config that the last successful promotion
// replaced.
// An unfinished promotion (see Unfinished) is rolled back first: that is
// the rollback then.
func (pr *Promoter) Rollback(ctx context.Context) (Promotion, error) {
	if u, err := pr.Unfinished(); err != nil {
		return Promotion{}, err
	} else if u != nil {
		return pr.Recover(ctx, *u)
	}
	hist, err := ReadPromotions(pr.Journal)
	if err != nil {
		return Promotion{}, err
	}
	// Walk back over promotions and rollbacks: each rollback undoes the
	// latest successful promotion not already undone.
	var stack []Promotion
	for _, p := range hist {
		if p.Config != pr.ConfigPath || p.Status != StatusOK {
			continue
		}
		switch p.Action {
		case "promote":
			stack = append(stack, p)
		case "rollback":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) == 0 {
		return Promotion{}, fmt.Errorf("rollback %s: %w", pr.ConfigPath, ErrNothingToRollBack)
	}
	last := stack[len(stack)-1]
	if !last.Existed {
		return pr.removeCreated(ctx, last)
	}
	data, err := os.ReadFile(last.Backup)
	if err != nil {
		return Promotion{}, fmt.Errorf("rollback: read backup: %w", err)
	}
	return pr.install(ctx, data, Promotion{Action: "rollback", Run: last.Run, Trial: last.Trial})
}

// removeCreated undoes the promotion that created the production config:
// what was there before was no file, so the rollback removes it (the
// promoted bytes stay in the run that recorded them), then runs the kind's
// Restore (Verify when nil) on the missing file: a kind whose promotion
// installs more than the file (postgres: the function the application
// calls) removes it there; the others have nothing to start.
func (pr *Promoter) removeCreated(ctx context.Context, last Promotion) (Promotion, error) {
	now := time.Now
	if pr.Now != nil {
		now = pr.Now
	}
	p := Promotion{Time: now().UTC(), Action: "rollback", Run: last.Run, Trial: last.Trial, Config: pr.ConfigPath, Existed: true, Removed: true}
	if err := os.Remove(pr.ConfigPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return p, fmt.Errorf("rollback: remove the production config the promotion of %s created: %w", last.Trial, err)
	}
	if restore := pr.restoreFunc(); restore != nil {
		if err := restore(ctx); err != nil {
			p.Status, p.Error = StatusRolledBack, err.Error()
			if jerr := pr.journal(p); jerr != nil {
				err = errors.Join(err, jerr)
			}
			return p, fmt.Errorf("rollback: removed the production config the promotion of %s created, but undoing what it installed failed: %w", last.Trial, err)
		}
	}
	p.Status = StatusOK
	return p, pr.journal(p)
}

func (pr *Promoter) journal(p Promotion) error {
	line, err := json.Marshal(p)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(pr.Journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("promotions journal: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("promotions journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("promotions journal: %w", err)
	}
	return f.Close()
}

// ReadPromotions reads promotions.jsonl (a missing file is an empty history).
func ReadPromotions(path string) ([]Promotion, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("promotions journal: %w", err)
	}
	var out []Promotion
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p Promotion
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}
