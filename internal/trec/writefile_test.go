package trec_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
)

// TestWriteRunFile: "-" writes to stdout, a path gets the same bytes, and
// a file that cannot be created is an error naming the command.
func TestWriteRunFile(t *testing.T) {
	r := trec.Run{Tag: "t", Queries: map[string][]trec.Result{"q1": {{DocNo: "d1", Score: 2}, {DocNo: "d2", Score: 1}}}}
	var stdout bytes.Buffer
	if err := trec.WriteRunFile("-", &stdout, r, "search"); err != nil || stdout.Len() == 0 {
		t.Fatalf("stdout: %v, %q", err, stdout.String())
	}
	path := filepath.Join(t.TempDir(), "run.trec")
	if err := trec.WriteRunFile(path, nil, r, "search"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != stdout.String() {
		t.Errorf("file %q, stdout %q", got, stdout.String())
	}
	err := trec.WriteRunFile(filepath.Join(t.TempDir(), "no", "run.trec"), nil, r, "search")
	if err == nil || !strings.HasPrefix(err.Error(), "search: ") {
		t.Errorf("missing directory: %v", err)
	}
}
