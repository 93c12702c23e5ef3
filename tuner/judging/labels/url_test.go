package labels_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		in, dialect, dsn, err string
	}{
		{in: "labels.db", dialect: "sqlite", dsn: "labels.db"},
		{in: "runs/labels.db", dialect: "sqlite", dsn: "runs/labels.db"},
		{in: "/tmp/labels.db", dialect: "sqlite", dsn: "/tmp/labels.db"},
		{in: "sqlite:labels.db", dialect: "sqlite", dsn: "labels.db"},
		{in: "sqlite:///runs/labels.db", dialect: "sqlite", dsn: "runs/labels.db"},
		{in: "sqlite:////tmp/labels.db", dialect: "sqlite", dsn: "/tmp/labels.db"},
		{in: "postgres://u@h:5432/db", dialect: "postgres", dsn: "postgres://u@h:5432/db"},
		{in: "postgresql://u:secret@h/db", dialect: "postgres", dsn: "postgres://u:secret@h/db"},
		{in: "", err: "empty"},
		{in: "sqlite:", err: "missing database file path"},
		{in: "sqlite://labels.db", err: "three and a path"},
		{in: "sqlite::memory:", err: "in-memory"},
		{in: "postgres:///db", err: "missing host"},
		{in: "postgres://u:secret@h/", err: "missing database name"},
		{in: "mysql://u@h/db", err: `unsupported scheme "mysql"`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			loc, err := labels.ParseURL(c.in)
			if c.err != "" {
				if err == nil || !errors.Is(err, labels.ErrBadURL) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseURL(%q) = %v; want ErrBadURL with %q", c.in, err, c.err)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Fatalf("error shows the password: %v", err)
				}
				return
			}
			if err != nil || loc.Dialect != c.dialect || loc.DSN != c.dsn {
				t.Fatalf("ParseURL(%q) = %+v, %v; want %s %s", c.in, loc, err, c.dialect, c.dsn)
			}
			if strings.Contains(loc.Redacted, "secret") {
				t.Fatalf("Redacted shows the password: %s", loc.Redacted)
			}
		})
	}
}
