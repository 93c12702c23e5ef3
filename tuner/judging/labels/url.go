package labels

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/internal/sqldb"
)

// ErrBadURL is wrapped by every error about a malformed or unsupported
// store URL; callers treat it as invalid user input.
var ErrBadURL = errors.New("bad label store URL")

// Dialects a store URL can name.
const (
	DialectSQLite   = sqldb.DialectSQLite
	DialectPostgres = sqldb.DialectPostgres
)

// Location is a parsed store URL (Dialect is DialectSQLite or
// DialectPostgres).
type Location = sqldb.Location

// ParseURL parses a store URL: a plain file path or "sqlite:PATH" for
// SQLite ("sqlite:///PATH" too, relative, as study storage URLs are;
// "sqlite:////PATH" is absolute), "postgres://" or "postgresql://" for
// PostgreSQL.
func ParseURL(raw string) (Location, error) {
	bad := func(format string, args ...any) (Location, error) {
		return Location{}, fmt.Errorf("%w %q: %s", ErrBadURL, sqldb.Redact(raw), fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(raw) == "" {
		return bad("empty (want a file path, sqlite:PATH or postgres://USER@HOST:PORT/DB)")
	}
	scheme, rest, hasScheme := strings.Cut(raw, ":")
	if !hasScheme || len(scheme) < 2 || strings.ContainsAny(scheme, "/\\.") {
		// A plain path (a one-letter "scheme" is a Windows drive).
		return sqlitePath(raw, raw, bad)
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		if strings.HasPrefix(rest, "//") {
			if !strings.HasPrefix(rest, "///") {
				return bad("a sqlite URL with slashes has three and a path: sqlite:///PATH (four for an absolute path)")
			}
			rest = rest[3:]
		}
		return sqlitePath(rest, raw, bad)
	case "postgres", "postgresql":
		u, err := url.Parse(raw)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			return bad("%v", err)
		}
		if u.Hostname() == "" {
			return bad("missing host (want postgres://USER@HOST:PORT/DB)")
		}
		if strings.Trim(u.Path, "/") == "" {
			return bad("missing database name (want postgres://USER@HOST:PORT/DB)")
		}
		u.Scheme = "postgres"
		return Location{Dialect: DialectPostgres, DSN: u.String(), Redacted: u.Redacted()}, nil
	default:
		if strings.HasPrefix(rest, "//") {
			return bad("unsupported scheme %q (want a file path, sqlite:PATH or postgres://)", scheme)
		}
		return sqlitePath(raw, raw, bad)
	}
}

func sqlitePath(path, raw string, bad func(string, ...any) (Location, error)) (Location, error) {
	switch {
	case path == "" || strings.HasSuffix(path, "/"):
		return bad("missing database file path")
	case strings.ContainsRune(path, '?'):
		return bad("query parameters are not supported for sqlite")
	case path == ":memory:":
		return bad("an in-memory database is lost at exit; give a file path")
	}
	return Location{Dialect: DialectSQLite, DSN: path, Redacted: raw}, nil
}

// Absent reports whether raw names a SQLite file that does not exist yet
// (Open would create it): readers then have no labels to read and need
// not create a store. False for PostgreSQL and for a malformed URL (Open
// reports that).
func Absent(raw string) bool {
	loc, err := ParseURL(raw)
	if err != nil || loc.Dialect != DialectSQLite {
		return false
	}
	_, err = os.Stat(loc.DSN)
	return errors.Is(err, os.ErrNotExist)
}
