package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs/report"
)

// TestWriteTo: tune report's --out: "" writes report.html into the run,
// "-" writes to stdout (no path), any other path gets the same bytes; a
// path that cannot be written names --out.
func TestWriteTo(t *testing.T) {
	run := loadFixture(t)
	o := report.DefaultOptions()
	var stdout bytes.Buffer
	if p, err := report.WriteTo(run, "-", &stdout, o); err != nil || p != "" || stdout.Len() == 0 {
		t.Fatalf("stdout: %q, %v", p, err)
	}
	p, err := report.WriteTo(run, "", nil, o)
	if err != nil || p != filepath.Join(run.Dir, report.FileName) {
		t.Fatalf("run directory: %q, %v", p, err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if p, err := report.WriteTo(run, out, nil, o); err != nil || p != out {
		t.Fatalf("--out: %q, %v", p, err)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, stdout.Bytes()) {
		t.Error("--out and stdout differ")
	}
	if _, err := report.WriteTo(run, filepath.Join(t.TempDir(), "no", "r.html"), nil, o); err == nil || !strings.HasPrefix(err.Error(), "report --out: ") {
		t.Errorf("missing directory: %v", err)
	}
}
