package promote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/promote"
)

// newPromoter returns a promoter whose Verify reads the config back, the
// way a restarted service would, and refuses any config containing "bad".
func newPromoter(t *testing.T) (*promote.Promoter, *[]string) {
	dir := t.TempDir()
	var seen []string
	pr := &promote.Promoter{
		ConfigPath: filepath.Join(dir, "prod.yaml"),
		BackupDir:  filepath.Join(dir, "backups"),
		Journal:    filepath.Join(dir, "promotions.jsonl"),
	}
	pr.Verify = func(context.Context) error {
		data, err := os.ReadFile(pr.ConfigPath)
		if err != nil {
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
	hist, err := promote.ReadPromotions(pr.Journal)
	if err != nil || len(hist) != 4 {
		t.Fatalf("journal: %v, %d lines", err, len(hist))
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
	if _, err := pr.Rollback(context.Background()); !errors.Is(err, promote.ErrNothingToRollBack) {
		t.Errorf("third rollback: %v, want ErrNothingToRollBack", err)
	}
	// Verify ran on the two promotions and the restored k=40, not on "no file".
	if len(*seen) != 3 {
		t.Errorf("verify ran %d times, want 3", len(*seen))
	}
}
