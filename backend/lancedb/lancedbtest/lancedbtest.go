package lancedbtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fusiontune/fusiontune/backend/lancedb"
)

// SidecarDir returns the sidecar directory of the source tree, with
// LanceDB installed; it skips tb when that or node is missing (fails
// under CI=true).
func SidecarDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "sidecar")
	err := lancedb.CheckSidecarDir(dir)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("lancedb sidecar: %v (CI=true: .ci/run installs node and runs npm ci in backend/lancedb/sidecar)", err)
		}
		tb.Skipf("lancedb sidecar: %v (cd backend/lancedb/sidecar && npm ci)", err)
	}
	return dir
}
