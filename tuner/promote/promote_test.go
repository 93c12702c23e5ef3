package promote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/promote"
)

// newPromoter returns a promoter whose Verify reads the config back, the
// way a restarted service would, and refuses any config containing "bad".
// Like the postgres kind, it installs something beside the file (a
// function, here the file's bytes in installed.txt) and removes it when
// the config does not exist (a rollback past the first promotion).
func newPromoter(t *testing.T) (*promote.Promoter, *[]string) {
	dir := t.TempDir()
	var seen []string
	pr := &promote.Promoter{
		ConfigPath: filepath.Join(dir, "prod.yaml"),
		BackupDir:  filepath.Join(dir, "backups"),
		Journal:    filepath.Join(dir, "promotions.jsonl"),
	}
	installed := filepath.Join(dir, "installed.txt")
	pr.Verify = func(context.Context) error {
		data, err := os.ReadFile(pr.ConfigPath)
		if errors.Is(err, os.ErrNotExist) {
			return os.RemoveAll(installed)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(installed, data, 0o644); err != nil {
			return err
		}
		seen = append(seen, string(data))
		if strings.Contains(string(data), "bad") {
			return errors.New("service did not become ready")
		}
		return nil
	}
	return pr, &seen
}

func TestPromoteThenRollback(t *testing.T) {
	pr, seen := newPromoter(t)
	if err := os.WriteFile(pr.ConfigPath, []byte("fusion: {k: 60}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := pr.Promote(context.Background(), []byte("fusion: {k: 40}\n"), promote.Promotion{Run: "r1", Trial: "k=40"})
	if err != nil || p.Status != "ok" {
		t.Fatalf("promote: %v %+v", err, p)
	}
	p2, err := pr.Promote(context.Background(), []byte("fusion: {k: 80}\n"), promote.Promotion{Run: "r2", Trial: "k=80"})
	if err != nil || p2.Status != "ok" {
		t.Fatalf("second promote: %v", err)
	}
	for _, want := range []string{"fusion: {k: 40}\n", "fusion: {k: 60}\n"} {
		if _, err := pr.Rollback(context.Background()); err != nil {
			t.Fatalf("rollback: %v", err)
		}
		if got, _ := os.ReadFile(pr.ConfigPath); string(got) != want {
			t.Fatalf("after rollback: %q, want %q", got, want)
		}
	}
	if _, err := pr.Rollback(context.Background()); !errors.Is(err, promote.ErrNothingToRollBack) {
		t.Errorf("third rollback: %v, want ErrNothingToRollBack", err)
	}
	// Each promotion and rollback: its intent, then its outcome.
	hist, err := promote.ReadPromotions(pr.Journal)
	if err != nil || len(hist) != 8 {
		t.Fatalf("journal: %v, %d lines", err, len(hist))
	}
	for i, p := range hist {
		want := promote.StatusPending
		if i%2 == 1 {
			want = promote.StatusOK
		}
		if p.Status != want || !p.Time.Equal(hist[i-i%2].Time) {
			t.Errorf("journal line %d: status %q at %s, want %q", i+1, p.Status, p.Time, want)
		}
	}
	if len(*seen) != 4 {
		t.Errorf("verify ran %d times, want 4", len(*seen))
	}
}

func TestFailedPromotionRestoresBytes(t *testing.T) {
	pr, seen := newPromoter(t)
	orig := []byte("# production, hand-edited\nfusion: {k: 60}   # keep this comment\n")
	if err := os.WriteFile(pr.ConfigPath, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pr.Promote(context.Background(), []byte("bad config\n"), promote.Promotion{Trial: "broken"})
	if err == nil {
		t.Fatal("promotion of a failing config succeeded")
	}
	if p.Status != "rolled_back" || !strings.Contains(err.Error(), "previous config restored") {
		t.Errorf("status %q, error %v", p.Status, err)
	}
	got, _ := os.ReadFile(pr.ConfigPath)
	if st, _ := os.Stat(pr.ConfigPath); st.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	if string(got) != string(orig) {
		t.Errorf("production config not byte-identical after a failed promotion:\n%q", got)
	}
	// Verify ran on the bad config, then again on the restored one.
	if len(*seen) != 2 || (*seen)[1] != string(orig) {
		t.Errorf("verify calls: %q", *seen)
	}
	if _, err := pr.Rollback(context.Background()); !errors.Is(err, promote.ErrNothingToRollBack) {
		t.Errorf("rollback after a failed promotion: %v", err)
	}
}

// TestFirstPromotionThenRollback: a promotion into a config that did not
// exist creates it (and its directory); the rollback restores "no file",
// and a second promotion on top is undone first.
func TestFirstPromotionThenRollback(t *testing.T) {
	pr, seen := newPromoter(t)
	pr.ConfigPath = filepath.Join(filepath.Dir(pr.ConfigPath), "etc", "prod.yaml")
	p, err := pr.Promote(context.Background(), []byte("fusion: {k: 40}\n"), promote.Promotion{Run: "r1", Trial: "k=40"})
	if err != nil || p.Status != "ok" || p.Existed || p.Backup != "" {
		t.Fatalf("first promotion: %v %+v", err, p)
	}
	if _, err := pr.Promote(context.Background(), []byte("fusion: {k: 80}\n"), promote.Promotion{Run: "r2", Trial: "k=80"}); err != nil {
		t.Fatalf("second promotion: %v", err)
	}
	if _, err := pr.Rollback(context.Background()); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if got, _ := os.ReadFile(pr.ConfigPath); string(got) != "fusion: {k: 40}\n" {
		t.Fatalf("after the first rollback: %q", got)
	}
	r, err := pr.Rollback(context.Background())
	if err != nil || !r.Removed || r.Status != "ok" {
		t.Fatalf("rollback of the first promotion: %v %+v", err, r)
	}
	if _, err := os.Stat(pr.ConfigPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the created config is still there: %v", err)
	}
	if _, err := os.Stat(installedPath(pr)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rollback of the first promotion left what it installed beside the file: %v", err)
	}
	if _, err := pr.Rollback(context.Background()); !errors.Is(err, promote.ErrNothingToRollBack) {
		t.Errorf("third rollback: %v, want ErrNothingToRollBack", err)
	}
	// Verify ran on the two promotions and the restored k=40, not on "no file".
	if len(*seen) != 3 {
		t.Errorf("verify ran %d times, want 3", len(*seen))
	}
}

// killedPromotion promotes config with a Verify that ends its goroutine
// the way a SIGKILL ends the process: nothing after the switch runs, so the
// journal holds only the intent.
func killedPromotion(t *testing.T, pr *promote.Promoter, config string) {
	t.Helper()
	verify := pr.Verify
	pr.Verify = func(context.Context) error {
		os.WriteFile(installedPath(pr), []byte(config), 0o644) // installed, then killed
		runtime.Goexit()
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		pr.Promote(context.Background(), []byte(config), promote.Promotion{Run: "r9", Trial: "killed"})
	}()
	<-done
	pr.Verify = verify
}

// TestInterruptedPromotion: a promotion killed during its verification
// leaves its intent in the journal; Unfinished finds it, State says what
// the config holds, and Rollback completes the rollback (the previous
// bytes back, or the created file removed) and journals the outcome. A
// missing backup changes nothing and says so.
func TestInterruptedPromotion(t *testing.T) {
	cases := []struct {
		name      string
		before    string // "" for no production config
		noBackup  bool
		wantState string
		wantErr   string
	}{
		{name: "replaced", before: "fusion: {k: 60}\n", wantState: "it holds the new, unverified config; the previous config is saved in "},
		{name: "created", wantState: "it holds the new, unverified config; there was no config before it"},
		{name: "backup lost", before: "fusion: {k: 60}\n", noBackup: true, wantState: "it holds the new, unverified config", wantErr: "cannot be read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, _ := newPromoter(t)
			if tc.before != "" {
				if err := os.WriteFile(pr.ConfigPath, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			killedPromotion(t, pr, "fusion: {k: 10}\n")
			u, err := pr.Unfinished()
			if err != nil || u == nil || u.Trial != "killed" || u.Status != promote.StatusPending {
				t.Fatalf("Unfinished = %+v, %v", u, err)
			}
			if st := pr.State(*u); !strings.Contains(st, `the promote of trial "killed" (run r9)`) || !strings.Contains(st, tc.wantState) {
				t.Errorf("State = %q, want it to contain %q", st, tc.wantState)
			}
			if tc.noBackup {
				os.Remove(u.Backup)
			}
			p, err := pr.Rollback(context.Background())
			if tc.wantErr != "" {
				if !errors.Is(err, promote.ErrUnfinished) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), u.Backup) {
					t.Fatalf("rollback: %v, want ErrUnfinished naming the backup", err)
				}
				if now, _ := os.ReadFile(pr.ConfigPath); string(now) != "fusion: {k: 10}\n" {
					t.Errorf("a failed recovery changed the config to %q", now)
				}
				return
			}
			if err != nil || p.Status != promote.StatusRolledBack || !strings.Contains(p.Error, "interrupted") {
				t.Fatalf("rollback: %+v, %v", p, err)
			}
			now, err := os.ReadFile(pr.ConfigPath)
			if tc.before == "" {
				if !os.IsNotExist(err) {
					t.Errorf("created config not removed: %q, %v", now, err)
				}
				if _, err := os.Stat(installedPath(pr)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("what the interrupted promotion installed beside the file is still there: %v", err)
				}
			} else if string(now) != tc.before {
				t.Errorf("config after rollback %q, want %q", now, tc.before)
			}
			if u, err := pr.Unfinished(); u != nil || err != nil {
				t.Errorf("still unfinished after the rollback: %+v, %v", u, err)
			}
			if _, err := pr.Rollback(context.Background()); !errors.Is(err, promote.ErrNothingToRollBack) {
				t.Errorf("second rollback: %v, want ErrNothingToRollBack", err)
			}
		})
	}
}

// installedPath is where newPromoter's Verify installs the config beside
// the file.
func installedPath(pr *promote.Promoter) string {
	return filepath.Join(filepath.Dir(pr.BackupDir), "installed.txt")
}
