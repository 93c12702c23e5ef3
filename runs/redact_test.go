package runs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/runs"
)

func TestRedactor(t *testing.T) {
	r := runs.NewRedactor("sk-abc123456", "sk-abc123456-long", "short")
	for _, tc := range []struct{ in, want string }{
		{"key sk-abc123456-long and sk-abc123456.", "key [redacted] and [redacted]."},
		{"short stays", "short stays"}, // under MinSecretLen: not a secret
		{"nothing", "nothing"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var nilR *runs.Redactor
	if nilR.String("sk-abc123456") != "sk-abc123456" {
		t.Error("a nil Redactor changed its input")
	}
	var b strings.Builder
	n, err := r.Writer(&b).Write([]byte("Bearer sk-abc123456\n"))
	if err != nil || n != 20 || b.String() != "Bearer [redacted]\n" {
		t.Errorf("Writer: %d %v %q", n, err, b.String())
	}
}

// TestRunFilesRedacted: every file a run writes through the store passes
// the store's redactor.
func TestRunFilesRedacted(t *testing.T) {
	s, err := runs.Open(filepath.Join(t.TempDir(), "runs"))
	if err != nil {
		t.Fatal(err)
	}
	s.Redact = runs.NewRedactor("tok-9f8e7d6c5b")
	run, err := s.Create(runs.Manifest{Args: []string{"--token", "tok-9f8e7d6c5b"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := run.RecordTrial(runs.TrialRecord{Name: "t", Status: runs.StatusFailed, Error: "401: tok-9f8e7d6c5b"}, []runs.QueryResult{{QueryID: "q", Error: "auth tok-9f8e7d6c5b"}}); err != nil {
		t.Fatal(err)
	}
	// A batch of trials (the replay path) is redacted too.
	batch := run.NewTrialBatch()
	for i := 1; i <= 2; i++ {
		rec := runs.TrialRecord{Index: i, Name: "replayed", Status: runs.StatusFailed, Error: "key tok-9f8e7d6c5b"}
		if err := batch.Record(rec, []runs.QueryResult{{QueryID: "q", Error: "auth tok-9f8e7d6c5b"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Flush(); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(run.Dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			if strings.Contains(string(data), "tok-9f8e7d6c5b") {
				t.Errorf("%s holds the secret", p)
			}
			if !strings.Contains(string(data), "[redacted]") {
				t.Errorf("%s: no redaction marker", p)
			}
		}
		return nil
	})
}
