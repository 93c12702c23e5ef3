package runs_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestAddURLPassword: a URL's password is redacted, a URL without one
// adds nothing.
func TestAddURLPassword(t *testing.T) {
	for _, tc := range []struct{ name, url, text, want string }{
		{"password", "postgres://tune:s3cr3t-pw@db:5432/labels", "login s3cr3t-pw failed", "login " + runs.Redacted + " failed"},
		{"no password", "postgres://tune@db/labels", "tune@db", "tune@db"},
		{"not a URL", "labels.db", "labels.db", "labels.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runs.NewRedactor()
			r.AddURLPassword(tc.url)
			if got := r.String(tc.text); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
