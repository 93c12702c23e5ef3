package labels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Store is an open label store.
type Store struct {
	// Location is the parsed URL the store was opened from.
	Location Location

	db *gorm.DB
}

// labelRow is a stored label: the table fusiontune_labels. Rows are only
// ever inserted. Times are UTC nanoseconds since 1970, so that every
// dialect orders them alike.
type labelRow struct {
	ID         int64   `gorm:"column:id;primaryKey;autoIncrement"`
	Dataset    string  `gorm:"column:dataset;type:text;not null;index:fusiontune_labels_pair,priority:1"`
	QueryID    string  `gorm:"column:query_id;type:text;not null;index:fusiontune_labels_pair,priority:2"`
	DocID      string  `gorm:"column:doc_id;type:text;not null;index:fusiontune_labels_pair,priority:3"`
	Judge      string  `gorm:"column:judge;type:text;not null"`
	Source     string  `gorm:"column:source;type:varchar(16);not null"`
	Grade      int     `gorm:"column:grade;not null"`
	TimeNS     int64   `gorm:"column:time_ns;not null"`
	Rationale  string  `gorm:"column:rationale;type:text;not null;default:''"`
	Confidence float64 `gorm:"column:confidence;not null;default:0"`
}

func (labelRow) TableName() string { return "fusiontune_labels" }

func (r labelRow) label() Label {
	return Label{Dataset: r.Dataset, Query: r.QueryID, Doc: r.DocID, Grade: r.Grade, Judge: r.Judge, Source: r.Source,
		Time: time.Unix(0, r.TimeNS).UTC(), Rationale: r.Rationale, Confidence: r.Confidence}
}

// SQLite busy timeout: how long a writer waits for another process's
// transaction before failing.
const sqliteBusyTimeout = 30 * time.Second

// Open parses url (see ParseURL), connects, and creates the tables when
// missing. A SQLite file is created when absent (its directory must exist).
// Errors about the URL wrap ErrBadURL. Messages never show a password.
func Open(ctx context.Context, url string) (*Store, error) {
	loc, err := ParseURL(url)
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
		// As in tuner/studystore: one process at a time switches a new
		// file to WAL and creates the tables (SQLite answers a concurrent
		// first open with SQLITE_BUSY at once, without its busy timeout).
		unlock, err := lockFile(loc.DSN + ".open-lock")
		if err != nil {
			return nil, fmt.Errorf("open label store %s: %w", loc.Redacted, err)
		}
		defer unlock()
		// WAL lets readers run beside the writer; _txlock=immediate takes
		// the write lock at BEGIN; the busy timeout makes a second writer
		// wait instead of failing.
		dialector = sqlite.Open(fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_txlock=immediate",
			loc.DSN, sqliteBusyTimeout.Milliseconds()))
	case DialectPostgres:
		dialector = postgres.Open(loc.DSN)
	}
	db, err := gorm.Open(dialector, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, fmt.Errorf("open label store %s: %w", loc.Redacted, err)
	}
	s := &Store{Location: loc, db: db}
	if err := s.migrate(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("open label store %s: %w", loc.Redacted, err)
	}
	return s, nil
}

// migrationLockKey is the PostgreSQL advisory lock taken while creating
// tables (differs from the study store's).
const migrationLockKey int64 = 0x66746c61_62656c73 // "ftlabels"

// migrate creates the tables: on PostgreSQL in one transaction under an
// advisory lock, elsewhere (under the open lock) with a retry for a race.
func (s *Store) migrate(ctx context.Context) error {
	db := s.db.WithContext(ctx)
	run := func(tx *gorm.DB) error {
		if tx.Migrator().HasTable(&cacheRow{}) {
			return nil // created last: everything is there
		}
		if err := tx.AutoMigrate(&labelRow{}); err != nil {
			return fmt.Errorf("create label table: %w", err)
		}
		if err := tx.AutoMigrate(&cacheRow{}); err != nil {
			return fmt.Errorf("create cache table: %w", err)
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

// Close closes the database connections.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return fmt.Errorf("close label store: %w", err)
	}
	if err := sqlDB.Close(); err != nil {
		return fmt.Errorf("close label store: %w", err)
	}
	return nil
}

// appendBatch is how many rows one INSERT carries (SQLite allows 32766
// bound variables per statement).
const appendBatch = 500

// Append stores ls in one transaction. Every label is validated first and
// nothing is written when any is invalid (the error lists every problem and
// wraps ErrInvalid). A zero Time becomes the current time.
func (s *Store) Append(ctx context.Context, ls []Label) error {
	if len(ls) == 0 {
		return nil
	}
	var errs []error
	now := time.Now().UTC()
	rows := make([]labelRow, len(ls))
	for i, l := range ls {
		if err := l.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("label %d: %w", i+1, err))
			continue
		}
		t := l.Time
		if t.IsZero() {
			t = now
		}
		rows[i] = labelRow{Dataset: l.Dataset, QueryID: l.Query, DocID: l.Doc, Judge: l.Judge, Source: l.Source,
			Grade: l.Grade, TimeNS: t.UnixNano(), Rationale: l.Rationale, Confidence: l.Confidence}
	}
	if len(errs) > 0 {
		return fmt.Errorf("append labels: %w", errors.Join(errs...))
	}
	err := s.retry(ctx, func(tx *gorm.DB) error {
		for i := range rows {
			rows[i].ID = 0 // a retried transaction inserts afresh
		}
		return tx.CreateInBatches(rows, appendBatch).Error
	})
	if err != nil {
		return fmt.Errorf("append %d labels to %s: %w", len(ls), s.Location.Redacted, err)
	}
	return nil
}

// History returns every label of dataset ever appended, in append order.
func (s *Store) History(ctx context.Context, dataset string) ([]Label, error) {
	var rows []labelRow
	if err := s.db.WithContext(ctx).Where("dataset = ?", dataset).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("labels of dataset %q: %w", dataset, err)
	}
	out := make([]Label, len(rows))
	for i, r := range rows {
		out[i] = r.label()
	}
	return out, nil
}

// Latest returns the latest label of each judge for each (query, doc) pair
// of dataset (the newest Time; of two with the same Time, the one appended
// last), ordered by query, doc and judge (byte order).
func (s *Store) Latest(ctx context.Context, dataset string) ([]Label, error) {
	var rows []labelRow
	if err := s.db.WithContext(ctx).Where("dataset = ?", dataset).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("labels of dataset %q: %w", dataset, err)
	}
	type key struct{ q, d, j string }
	latest := map[key]labelRow{}
	for _, r := range rows {
		k := key{r.QueryID, r.DocID, r.Judge}
		if have, ok := latest[k]; !ok || r.TimeNS > have.TimeNS || r.TimeNS == have.TimeNS && r.ID > have.ID {
			latest[k] = r
		}
	}
	out := make([]Label, 0, len(latest))
	for _, r := range latest {
		out = append(out, r.label())
	}
	slices.SortFunc(out, func(a, b Label) int {
		return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc), cmp.Compare(a.Judge, b.Judge))
	})
	return out, nil
}

// Select returns the labels of dataset: History when all, else Latest;
// only judge's when judge is not "".
func (s *Store) Select(ctx context.Context, dataset string, all bool, judge string) ([]Label, error) {
	get := s.Latest
	if all {
		get = s.History
	}
	ls, err := get(ctx, dataset)
	if err != nil || judge == "" {
		return ls, err
	}
	return slices.DeleteFunc(ls, func(l Label) bool { return l.Judge != judge }), nil
}

// Datasets returns the datasets the store holds labels for, sorted.
func (s *Store) Datasets(ctx context.Context) ([]string, error) {
	var ds []string
	if err := s.db.WithContext(ctx).Model(&labelRow{}).Distinct("dataset").Pluck("dataset", &ds).Error; err != nil {
		return nil, fmt.Errorf("datasets in %s: %w", s.Location.Redacted, err)
	}
	slices.Sort(ds)
	return ds, nil
}

// retry runs fn in a transaction, again while it fails with a transient
// lock or serialization conflict.
func (s *Store) retry(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return retrying(ctx, 8, 20*time.Millisecond, func() error { return s.db.WithContext(ctx).Transaction(fn) }, isRetryable)
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

// isRetryable reports whether err is a transient lock or serialization
// conflict worth retrying.
func isRetryable(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"database is locked", "sqlite_busy", "deadlock", "could not serialize", "40001", "40p01"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// lockFile takes an exclusive flock on path (created if missing), waiting
// for other processes; the returned func releases it.
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
