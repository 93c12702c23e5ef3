package studystore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/studystore"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		name, url   string
		dialect     string
		dsn         string
		redacted    string
		errContains string
	}{
		{name: "sqlite relative", url: "sqlite:///runs/study.db", dialect: "sqlite", dsn: "runs/study.db"},
		{name: "sqlite absolute", url: "sqlite:////tmp/study.db", dialect: "sqlite", dsn: "/tmp/study.db"},
		{name: "postgres", url: "postgres://u:secret@db.example:5432/tune?sslmode=disable", dialect: "postgres",
			dsn: "postgres://u:secret@db.example:5432/tune?sslmode=disable", redacted: "postgres://u:xxxxx@db.example:5432/tune?sslmode=disable"},
		{name: "postgresql scheme", url: "postgresql://u@127.0.0.1/tune", dialect: "postgres", dsn: "postgres://u@127.0.0.1/tune"},
		{name: "mysql", url: "mysql://u:p@127.0.0.1:3306/tune", dialect: "mysql",
			dsn: "u:p@tcp(127.0.0.1:3306)/tune?parseTime=true", redacted: "mysql://u:xxxxx@127.0.0.1:3306/tune"},
		{name: "mysql params kept", url: "mysql://u@h/tune?timeout=5s", dialect: "mysql", dsn: "u@tcp(h)/tune?parseTime=true&timeout=5s"},
		{name: "empty", url: "", errContains: "want sqlite:///PATH"},
		{name: "no scheme", url: "study.db", errContains: "want sqlite:///PATH"},
		{name: "unknown scheme", url: "redis://h/0", errContains: `unsupported scheme "redis"`},
		{name: "sqlite two slashes", url: "sqlite://study.db", errContains: "three slashes"},
		{name: "sqlite no path", url: "sqlite:///", errContains: "missing database file path"},
		{name: "sqlite memory", url: "sqlite:///:memory:", errContains: "cannot be shared"},
		{name: "sqlite query", url: "sqlite:///a.db?mode=ro", errContains: "query parameters"},
		{name: "postgres no host", url: "postgres:///tune", errContains: "missing host"},
		{name: "postgres no db", url: "postgres://u:pw@h:5432", errContains: "missing database name"},
		{name: "postgres password hidden", url: "postgres://u:hunter2@h:5432", errContains: "u:xxxxx@h"},
		{name: "postgres bad port", url: "postgres://h:port/db", errContains: "invalid port"},
		{name: "mysql no db", url: "mysql://u@h:3306/", errContains: "one database name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := studystore.ParseURL(tt.url)
			if tt.errContains != "" {
				if err == nil {
					t.Fatalf("ParseURL(%q) = %+v, want error containing %q", tt.url, loc, tt.errContains)
				}
				if !errors.Is(err, studystore.ErrBadURL) {
					t.Errorf("error %v does not wrap ErrBadURL", err)
				}
				if !strings.Contains(err.Error(), tt.errContains) {
					t.Errorf("error %q does not contain %q", err, tt.errContains)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseURL(%q): %v", tt.url, err)
			}
			if loc.Dialect != tt.dialect || loc.DSN != tt.dsn {
				t.Errorf("ParseURL(%q) = %s %q, want %s %q", tt.url, loc.Dialect, loc.DSN, tt.dialect, tt.dsn)
			}
			want := tt.redacted
			if want == "" {
				want = tt.url
				if tt.dialect == "postgres" {
					want = tt.dsn
				}
			}
			if loc.Redacted != want {
				t.Errorf("Redacted = %q, want %q", loc.Redacted, want)
			}
		})
	}
}
