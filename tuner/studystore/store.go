package studystore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/c-bata/goptuna"
	rdb "github.com/c-bata/goptuna/rdb.v2"
	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Store is an open study database: goptuna's RDB storage plus the trial
// claiming and heartbeat operations of this package.
type Store struct {
	// Storage is goptuna's storage over the database; hand it to
	// goptuna.CreateStudy / LoadStudy with goptuna.StudyOptionStorage.
	Storage *rdb.Storage
	// Location is the parsed URL the store was opened from.
	Location Location

	db *gorm.DB
}

// SQLite busy timeout: how long a writer waits for another process's
// transaction before failing. Trials take seconds; writes take milliseconds.
const sqliteBusyTimeout = 30 * time.Second

// Open parses rawURL, connects, and creates goptuna's tables and this
// package's heartbeat table when missing. Opening the same database again,
// from any number of workers at once, changes nothing. Errors about the URL
// wrap ErrBadURL.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var dialector gorm.Dialector
	switch loc.Dialect {
	case DialectSQLite:
		dir := filepath.Dir(loc.DSN)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w %q: directory %q of the database file does not exist", ErrBadURL, loc.Redacted, dir)
		}
		// Opening a new file switches it to WAL and creates the tables,
		// reads then writes outside an immediate transaction: between
		// processes SQLite answers that with SQLITE_BUSY at once, without
		// its busy timeout, and under load the retries can run out (seen
		// in CI). One process at a time opens the file; the others then
		// find the tables made.
		unlock, err := lockFile(loc.DSN + ".open-lock")
		if err != nil {
			return nil, fmt.Errorf("open study storage %s: %w", loc.Redacted, err)
		}
		defer unlock()
		// WAL lets readers run beside the writer; _txlock=immediate takes
		// the write lock at BEGIN so that two processes never both read
		// and then both try to write (SQLite ignores SELECT ... FOR UPDATE);
		// the busy timeout makes the second one wait instead of failing.
		dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate",
			loc.DSN, sqliteBusyTimeout.Milliseconds())
		dialector = sqlite.Open(dsn)
	case DialectPostgres:
		dialector = postgres.Open(loc.DSN)
	case DialectMySQL:
		dialector = mysql.Open(loc.DSN)
	}
	db, err := gorm.Open(dialector, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, fmt.Errorf("open study storage %s: %w", loc.Redacted, err)
	}
	s := &Store{Storage: rdb.NewStorage(db), Location: loc, db: db}
	if err := s.migrate(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("open study storage %s: %w", loc.Redacted, err)
	}
	return s, nil
}

// migrate creates the tables. On PostgreSQL DDL is transactional, so the
// migration runs in one transaction under an advisory lock; elsewhere
// concurrent first opens can race on CREATE TABLE, and a retry sees the
// tables the other worker made.
func (s *Store) migrate(ctx context.Context) error {
	db := s.db.WithContext(ctx)
	run := func(tx *gorm.DB) error {
		// The heartbeat table is created last: when it is there, an
		// earlier open made everything (gorm's full introspection of an
		// existing schema costs about a second on PostgreSQL).
		if tx.Migrator().HasTable(&heartbeat{}) {
			return nil
		}
		if err := rdb.RunAutoMigrate(tx); err != nil {
			return fmt.Errorf("create goptuna tables: %w", err)
		}
		if err := tx.AutoMigrate(&recordRow{}); err != nil {
			return fmt.Errorf("create record table: %w", err)
		}
		if err := tx.AutoMigrate(&heartbeat{}); err != nil {
			return fmt.Errorf("create heartbeat table: %w", err)
		}
		return nil
	}
	if s.Location.Dialect == DialectPostgres {
		return db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockKey).Error; err != nil {
				return fmt.Errorf("migration lock: %w", err)
			}
			return run(tx)
		})
	}
	return retrying(ctx, 5, 100*time.Millisecond, func() error { return run(db) }, func(err error) bool {
		return isRetryable(err) || strings.Contains(err.Error(), "already exists")
	})
}

// retrying calls fn up to attempts times while it fails with an error again
// says is transient, waiting a growing multiple of pause in between.
func retrying(ctx context.Context, attempts int, pause time.Duration, fn func() error, again func(error) bool) error {
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

// migrationLockKey is the PostgreSQL advisory lock taken while creating
// tables ("fusiontune" in ASCII, truncated to 64 bits).
const migrationLockKey int64 = 0x66757369_6f6e7475

// Close closes the database connections.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("close study storage: %w", err)
	}
	return sqlDB.Close()
}

// Study creates the study name with the given direction, or loads it when
// it exists (from an earlier run or another worker), with the given goptuna
// options (sampler, seed...). A study that exists with the other direction
// is an error.
func (s *Store) Study(name string, direction goptuna.StudyDirection, opts ...goptuna.StudyOption) (*goptuna.Study, error) {
	if name == "" {
		return nil, errors.New("study: empty name")
	}
	opts = append([]goptuna.StudyOption{
		goptuna.StudyOptionStorage(s.Storage),
		goptuna.StudyOptionDirection(direction),
		goptuna.StudyOptionLoadIfExists(true),
		goptuna.StudyOptionLogger(nil),
	}, opts...)
	var study *goptuna.Study
	var err error
	// Two workers creating the same study at once: one insert wins on the
	// unique name and the other retries and loads it; goptuna sets the
	// direction just after the insert, so a loader may see the default for
	// a moment and looks again.
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
		study, err = goptuna.CreateStudy(name, opts...)
		if err != nil {
			continue
		}
		if got := study.Direction(); got != direction {
			err = fmt.Errorf("exists with direction %s, want %s", got, direction)
			continue
		}
		return study, nil
	}
	return nil, fmt.Errorf("study %q: %w", name, err)
}

// isRetryable reports whether err is a transient lock or serialization
// conflict worth retrying.
func isRetryable(err error) bool {
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

// lockFile takes an exclusive flock on path (created if missing), waiting
// for other processes; the returned func releases it. The lock dies with
// its process, so a crashed worker never leaves it held.
func lockFile(path string) (func(), error) {
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
