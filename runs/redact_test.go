package runs_test

import (
	"encoding/base64"
	"net/url"
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
	// A writer made before its redactor knew a secret redacts the writes
	// after it learns one.
	empty := runs.NewRedactor()
	var c strings.Builder
	w := empty.Writer(&c)
	w.Write([]byte("sk-abc123456 "))
	empty.Add("sk-abc123456")
	w.Write([]byte("sk-abc123456\n"))
	if c.String() != "sk-abc123456 [redacted]\n" {
		t.Errorf("Writer of a redactor that learns a secret: %q", c.String())
	}
}

// TestRedactorCredentialParts: a header value's credential is redacted
// when echoed without its scheme word, and a Basic credential's decoded
// pair and password too.
func TestRedactorCredentialParts(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:pa55word-x"))
	r := runs.NewRedactor("Bearer sk-live-0123456789", basic, "Token  tok_abcdef ", "Bearer 12345")
	for _, tc := range []struct{ in, want string }{
		{"invalid credentials: sk-live-0123456789", "invalid credentials: [redacted]"},
		{"got Bearer sk-live-0123456789.", "got [redacted]."},
		{"bad " + basic, "bad [redacted]"},
		{"user alice:pa55word-x", "user [redacted]"},
		{"password pa55word-x rejected", "password [redacted] rejected"},
		{"token tok_abcdef!", "token [redacted]!"},
		{"Token  tok_abcdef", "[redacted]"},
		{"Bearer 12345 and 12345", "[redacted] and 12345"}, // the credential alone is under MinSecretLen
		{"a Bearer word stays", "a Bearer word stays"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactorSchemeWords: in a value merely from a secret-looking
// variable only a known scheme word splits off its credential ("Alice
// Wonderland" keeps "Wonderland" readable alone); in a header value
// (AddHeader) any first word is a scheme.
func TestRedactorSchemeWords(t *testing.T) {
	r := runs.NewRedactor("Alice Wonderland", "bearer sk-lower-case-1")
	r.AddHeader("Custom cred-0123456789")
	for _, tc := range []struct{ in, want string }{
		{"Alice Wonderland and Wonderland", "[redacted] and Wonderland"},
		{"echo sk-lower-case-1", "echo [redacted]"},
		{"echo cred-0123456789", "echo [redacted]"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
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

// TestRedactorEchoes: a secret echoed URL-encoded, JSON-escaped (once or
// inside another JSON string), HTML-escaped or case-changed is redacted
// like the secret itself.
func TestRedactorEchoes(t *testing.T) {
	const token = "sk+live/4e1b7c9d<2a6f>08e3"
	r := runs.NewRedactor("Bearer " + token)
	for _, echo := range []string{
		token,
		url.QueryEscape(token),
		strings.ToLower(url.QueryEscape(token)),
		url.PathEscape(token),
		`sk+live\/4e1b7c9d<2a6f>08e3`,
		`sk+live/4e1b7c9d\u003c2a6f\u003e08e3`,
		`sk+live\\/4e1b7c9d<2a6f>08e3`,
		"sk+live/4e1b7c9d&lt;2a6f&gt;08e3",
		"sk&#43;live/4e1b7c9d&lt;2a6f&gt;08e3",
		strings.ToLower(token),
		strings.ToUpper(token),
	} {
		in := `{"error":"invalid key ` + echo + `"}`
		if got := r.String(in); got != `{"error":"invalid key `+runs.Redacted+`"}` {
			t.Errorf("echo %q: redacted to %q", echo, got)
		}
	}
	if got := r.String("sk+live and 4e1b7c9d alone"); got != "sk+live and 4e1b7c9d alone" {
		t.Errorf("parts of no secret redacted: %q", got)
	}
}

// TestAddURLPasswordsIn: the password of every URL among settings values
// is a secret.
func TestAddURLPasswordsIn(t *testing.T) {
	r := runs.NewRedactor()
	r.AddURLPasswordsIn(map[string]any{
		"dataset": map[string]any{"labels": "postgres://u:secretpw@db/labels"},
		"judge":   []any{"http://user:pw123456@127.0.0.1:1/v1", "plain"},
	})
	if got := r.String("secretpw pw123456 plain"); got != runs.Redacted+" "+runs.Redacted+" plain" {
		t.Errorf("redacted: %q", got)
	}
}
