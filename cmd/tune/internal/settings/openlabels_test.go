package settings

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
)

// TestOpenLabels: an absent SQLite store is not created without create,
// and is with it; a URL's password is redacted even when net/url cannot
// parse the URL; a malformed URL is the user's error.
func TestOpenLabels(t *testing.T) {
	ctx := context.Background()
	s := &Settings{Labels: filepath.Join(t.TempDir(), "labels.db")}
	st, err := s.OpenLabels(ctx, runs.NewRedactor(), false)
	if st != nil || err != nil {
		t.Fatalf("absent store without create: %v, %v", st, err)
	}
	if st, err = s.OpenLabels(ctx, runs.NewRedactor(), true); err != nil || st == nil {
		t.Fatalf("create: %v", err)
	}
	st.Close()

	if got := passwordOf("postgres://u:p%zz@h:5432/db"); got != "p%zz" {
		t.Errorf("passwordOf = %q", got)
	}
	s = &Settings{Labels: "mysql://u:pw@h/db"}
	r := runs.NewRedactor()
	_, err = s.OpenLabels(ctx, r, true)
	var ie *inputerr.Error
	if !errors.As(err, &ie) || strings.Contains(r.String(err.Error()), "pw@") {
		t.Errorf("bad URL: err = %v, want an input error without the password", err)
	}
}
