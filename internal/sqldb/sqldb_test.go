package sqldb

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gorm.io/gorm"
)

// TestRedact: a password never survives, whether the URL parses or not.
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:secret@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u:Bearer secret@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"labels.db", "labels.db"},
	} {
		if got := Redact(tc.in); got != tc.want || strings.Contains(got, "secret") {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestIsRetryable: the transient errors of concurrent writers retry, the
// others do not.
func TestIsRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{errors.New("ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)"), true},
		{errors.New("ERROR: deadlock detected (SQLSTATE 40P01)"), true},
		{errors.New("Error 1205: Lock wait timeout exceeded"), true},
		{errors.New("no such table: fusiontune_labels"), false},
	} {
		if got := IsRetryable(tc.err); got != tc.want {
			t.Errorf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestOpenSQLite: a file store opens (running Migrate once), a missing
// directory is the URL's fault, and a retried transaction commits.
func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	badURL := errors.New("bad URL")
	type row struct{ ID int64 }
	calls := 0
	o := Options{What: "test store", BadURL: badURL, Migrate: func(tx *gorm.DB) error { calls++; return tx.AutoMigrate(&row{}) }}
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(ctx, Location{Dialect: DialectSQLite, DSN: path, Redacted: path}, o)
	if err != nil {
		t.Fatal(err)
	}
	defer Close(db)
	if calls != 1 {
		t.Errorf("Migrate ran %d times, want 1", calls)
	}
	if err := Transaction(ctx, db, func(tx *gorm.DB) error { return tx.Create(&row{}).Error }); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.Model(&row{}).Count(&n).Error; err != nil || n != 1 {
		t.Fatalf("rows = %d (%v), want 1", n, err)
	}
	missing := filepath.Join(t.TempDir(), "nope", "t.db")
	if _, err := Open(ctx, Location{Dialect: DialectSQLite, DSN: missing, Redacted: missing}, o); !errors.Is(err, badURL) {
		t.Errorf("missing directory: err = %v, want one wrapping the bad-URL error", err)
	}
}
