package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/pgtest"
)

// TestStartServesAndCleansUp starts a cluster, queries it with psql and
// checks that the data directory lives under the helper's temp dir.
func TestStartServesAndCleansUp(t *testing.T) {
	var dir string
	t.Run("server", func(t *testing.T) {
		s := pgtest.Start(t)
		dir = s.Dir
		s.NewDatabase(t)
		bindir, err := pgtest.BinDir()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, filepath.Join(bindir, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port),
			"-U", "postgres", "-d", "t1", "-Atc", "SHOW server_version_num").CombinedOutput()
		if err != nil {
			t.Fatalf("psql: %v\n%s", err, out)
		}
		if v := strings.TrimSpace(string(out)); len(v) != 6 {
			t.Fatalf("server_version_num = %q", v)
		}
	})
	if dir == "" {
		return // skipped
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("temp dir %s still there after cleanup (err %v)", dir, err)
	}
}
