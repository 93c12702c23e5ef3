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
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" {
		return Location{}, badURL(raw, "want sqlite:///PATH, postgres://USER@HOST/DB or mysql://USER@HOST/DB")
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		return sqliteURL(raw, rest)
	case "postgres", "postgresql":
		return postgresURL(raw)
	case "mysql":
		return mysqlURL(raw)
	default:
		return Location{}, badURL(raw, "unsupported scheme %q (want sqlite, postgres or mysql)", scheme)
	}
}

// badURL is ErrBadURL for raw (its password redacted) with what is wrong.
func badURL(raw, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrBadURL, sqldb.Redact(raw), fmt.Sprintf(format, args...))
}

// sqliteURL is raw, a sqlite URL, whose text after "sqlite://" is rest:
// a file path after a third slash, without query parameters, not
// in-memory (workers share it).
func sqliteURL(raw, rest string) (Location, error) {
	if !strings.HasPrefix(rest, "/") {
		return Location{}, badURL(raw, "a sqlite URL has three slashes and a path: sqlite:///PATH (four for an absolute path)")
	}
	path := rest[1:]
	if q := strings.IndexByte(path, '?'); q >= 0 {
		return Location{}, badURL(raw, "query parameters are not supported for sqlite (got %q)", path[q:])
	}
	if path == "" || strings.HasSuffix(path, "/") {
		return Location{}, badURL(raw, "missing database file path after sqlite:///")
	}
	if path == ":memory:" {
		return Location{}, badURL(raw, "an in-memory database cannot be shared by workers; give a file path")
	}
	return Location{Dialect: DialectSQLite, DSN: path, Redacted: raw}, nil
}

// postgresURL is raw, a postgres:// or postgresql:// URL with a host and
// a database name; its DSN is the URL under the postgres scheme.
func postgresURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, badURL(raw, "%v", unwrapURLError(err))
	}
	if u.Hostname() == "" {
		return Location{}, badURL(raw, "missing host (want postgres://USER@HOST:PORT/DB)")
	}
	if strings.Trim(u.Path, "/") == "" {
		return Location{}, badURL(raw, "missing database name (want postgres://USER@HOST:PORT/DB)")
	}
	u.Scheme = "postgres"
	return Location{Dialect: DialectPostgres, DSN: u.String(), Redacted: u.Redacted()}, nil
}

// mysqlURL is raw, a mysql:// URL with a host and one database name; its
// DSN is the driver's USER:PASS@tcp(HOST:PORT)/DB?QUERY, with parseTime
// set.
func mysqlURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, badURL(raw, "%v", unwrapURLError(err))
	}
	if u.Hostname() == "" {
		return Location{}, badURL(raw, "missing host (want mysql://USER:PASS@HOST:PORT/DB)")
	}
	db := strings.Trim(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return Location{}, badURL(raw, "want exactly one database name in the path (mysql://USER:PASS@HOST:PORT/DB)")
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
