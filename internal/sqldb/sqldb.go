package sqldb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialects a store URL can name.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
	DialectMySQL    = "mysql"
)

// Location is a parsed store URL: the database dialect and the driver's
// data source name.
type Location struct {
	// Dialect is DialectSQLite, DialectPostgres or DialectMySQL.
	Dialect string
	// DSN is what the driver opens: a file path for SQLite, the URL for
	// PostgreSQL, a go-sql-driver DSN for MySQL.
	DSN string
	// Redacted is the URL with any password replaced, for messages.
	Redacted string
}

// SQLiteBusyTimeout is how long a SQLite writer waits for another
// process's transaction before failing. Writes take milliseconds.
const SQLiteBusyTimeout = 30 * time.Second

// Options say how Open treats one kind of store.
type Options struct {
	// What names the store in errors ("label store").
	What string
	// BadURL is wrapped by the error about a SQLite file whose directory
	// does not exist (the URL's fault).
	BadURL error
	// SQLitePragmas are extra SQLite DSN parameters ("&_pragma=...").
	SQLitePragmas string
	// LockKey is the PostgreSQL advisory lock held while Migrate runs.
	LockKey int64
	// Migrate creates the tables when missing; it runs once per Open,
	// under a lock (an advisory lock in a transaction on PostgreSQL, a
	// file lock on SQLite), and must be quick when the tables exist.
	Migrate func(tx *gorm.DB) error
}

// Open connects to loc and runs o.Migrate. A SQLite file is created when
// absent (its directory must exist); WAL lets readers run beside the
// writer, _txlock=immediate takes the write lock at BEGIN (so two
// processes never both read and then both try to write) and the busy
// timeout makes a second writer wait instead of failing. Messages never
// show a password.
func Open(ctx context.Context, loc Location, o Options) (*gorm.DB, error) {
	var dialector gorm.Dialector
	switch loc.Dialect {
	case DialectSQLite:
		dir := filepath.Dir(loc.DSN)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w %q: directory %q of the database file does not exist", o.BadURL, loc.Redacted, dir)
		}
		// Opening a new file switches it to WAL and creates the tables,
		// reads then writes outside an immediate transaction: between
		// processes SQLite answers that with SQLITE_BUSY at once, without
		// its busy timeout, and under load the retries can run out. One
		// process at a time opens the file; the others then find the
		// tables made.
		unlock, err := LockFile(loc.DSN + ".open-lock")
		if err != nil {
			return nil, fmt.Errorf("open %s %s: %w", o.What, loc.Redacted, err)
		}
		defer unlock()
		dialector = sqlite.Open(fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)%s&_txlock=immediate",
			loc.DSN, SQLiteBusyTimeout.Milliseconds(), o.SQLitePragmas))
	case DialectPostgres:
		dialector = postgres.Open(loc.DSN)
	case DialectMySQL:
		dialector = mysql.Open(loc.DSN)
	default:
		return nil, fmt.Errorf("%w %q: unknown dialect %q", o.BadURL, loc.Redacted, loc.Dialect)
	}
	db, err := gorm.Open(dialector, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, fmt.Errorf("open %s %s: %w", o.What, loc.Redacted, err)
	}
	if err := migrate(ctx, db, loc.Dialect, o); err != nil {
		_ = Close(db)
		return nil, fmt.Errorf("open %s %s: %w", o.What, loc.Redacted, err)
	}
	return db, nil
}

// migrate runs o.Migrate. On PostgreSQL DDL is transactional, so it runs
// in one transaction under an advisory lock; elsewhere concurrent first
// opens can race on CREATE TABLE, and a retry sees the tables the other
// process made.
func migrate(ctx context.Context, db *gorm.DB, dialect string, o Options) error {
	db = db.WithContext(ctx)
	if dialect == DialectPostgres {
		return db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", o.LockKey).Error; err != nil {
				return fmt.Errorf("migration lock: %w", err)
			}
			return o.Migrate(tx)
		})
	}
	return Retrying(ctx, 5, 100*time.Millisecond, func() error { return o.Migrate(db) }, func(err error) bool {
		return IsRetryable(err) || strings.Contains(err.Error(), "already exists")
	})
}

// Transaction runs fn in a transaction, retried (up to 8 times) while it
// fails with a transient error (IsRetryable).
func Transaction(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return Retrying(ctx, 8, 20*time.Millisecond, func() error { return db.WithContext(ctx).Transaction(fn) }, IsRetryable)
}

// Retrying calls fn up to attempts times while it fails with an error again
// says is transient, waiting a growing multiple of pause in between.
func Retrying(ctx context.Context, attempts int, pause time.Duration, fn func() error, again func(error) bool) error {
	var err error
	for attempt := 0; attempt < attempts; attempt++ {
		if err = fn(); err == nil || !again(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(attempt+1) * pause):
		}
	}
	return err
}

// IsRetryable tells the transient errors of concurrent writers: SQLite's
// busy/locked, PostgreSQL's serialization failures and deadlocks, MySQL's
// lock wait timeout.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"database is locked", "sqlite_busy", "deadlock", "could not serialize", "40001", "40p01", "lock wait timeout"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// LockFile takes an exclusive flock on path (created if missing), waiting
// for other processes; the returned func releases it. The lock dies with
// its process, so a crashed process never leaves it held.
func LockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Close closes db's connections.
func Close(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Redact hides a password in a URL, even one that does not parse.
func Redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	if at := strings.LastIndexByte(raw, '@'); at >= 0 {
		if i := strings.Index(raw, "://"); i >= 0 && i < at {
			if c := strings.IndexByte(raw[i+3:at], ':'); c >= 0 {
				return raw[:i+3+c+1] + "xxxxx" + raw[at:]
			}
		}
	}
	return raw
}
