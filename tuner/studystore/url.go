package studystore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/fusiontune/fusiontune/internal/sqldb"
)

// ErrBadURL is wrapped by every error about a malformed or unsupported
// storage URL; callers treat it as invalid user input.
var ErrBadURL = errors.New("bad storage URL")

// Dialects a storage URL can name.
const (
	DialectSQLite   = sqldb.DialectSQLite
	DialectPostgres = sqldb.DialectPostgres
	DialectMySQL    = sqldb.DialectMySQL
)

// Location is a parsed storage URL: the database dialect and the driver's
// data source name.
type Location = sqldb.Location

// ParseURL parses a storage URL. SQLite paths follow SQLAlchemy: the text
// after "sqlite:///" is the path, so "sqlite:///runs/study.db" is relative to
// the working directory and "sqlite:////tmp/study.db" is absolute.
func ParseURL(raw string) (Location, error) {
	bad := func(format string, args ...any) (Location, error) {
		return Location{}, fmt.Errorf("%w %q: %s", ErrBadURL, sqldb.Redact(raw), fmt.Sprintf(format, args...))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" {
		return bad("want sqlite:///PATH, postgres://USER@HOST/DB or mysql://USER@HOST/DB")
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		if !strings.HasPrefix(rest, "/") {
			return bad("a sqlite URL has three slashes and a path: sqlite:///PATH (four for an absolute path)")
		}
		path := rest[1:]
		if q := strings.IndexByte(path, '?'); q >= 0 {
			return bad("query parameters are not supported for sqlite (got %q)", path[q:])
		}
		if path == "" || strings.HasSuffix(path, "/") {
			return bad("missing database file path after sqlite:///")
		}
		if path == ":memory:" {
			return bad("an in-memory database cannot be shared by workers; give a file path")
		}
		return Location{Dialect: DialectSQLite, DSN: path, Redacted: raw}, nil
	case "postgres", "postgresql":
		u, err := url.Parse(raw)
		if err != nil {
			return bad("%v", unwrapURLError(err))
		}
		if u.Hostname() == "" {
			return bad("missing host (want postgres://USER@HOST:PORT/DB)")
		}
		if strings.Trim(u.Path, "/") == "" {
			return bad("missing database name (want postgres://USER@HOST:PORT/DB)")
		}
		u.Scheme = "postgres"
		return Location{Dialect: DialectPostgres, DSN: u.String(), Redacted: u.Redacted()}, nil
	case "mysql":
		u, err := url.Parse(raw)
		if err != nil {
			return bad("%v", unwrapURLError(err))
		}
		if u.Hostname() == "" {
			return bad("missing host (want mysql://USER:PASS@HOST:PORT/DB)")
		}
		db := strings.Trim(u.Path, "/")
		if db == "" || strings.Contains(db, "/") {
			return bad("want exactly one database name in the path (mysql://USER:PASS@HOST:PORT/DB)")
		}
		q := u.Query()
		q.Set("parseTime", "true")
		dsn := ""
		if u.User != nil {
			dsn = u.User.Username()
			if p, ok := u.User.Password(); ok {
				dsn += ":" + p
			}
			dsn += "@"
		}
		dsn += "tcp(" + u.Host + ")/" + db + "?" + q.Encode()
		return Location{Dialect: DialectMySQL, DSN: dsn, Redacted: u.Redacted()}, nil
	default:
		return bad("unsupported scheme %q (want sqlite, postgres or mysql)", scheme)
	}
}

// unwrapURLError drops net/url's repetition of the whole URL (which may hold
// a password) and keeps the reason.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
