package labels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fusiontune/fusiontune/internal/sqldb"
	"gorm.io/gorm"
)

// Store is an open label store.
type Store struct {
	// Location is the parsed URL the store was opened from.
	Location Location

	db *gorm.DB
}

// labelRow is a stored label: the table fusiontune_labels. Rows are only
// ever inserted. Times are UTC nanoseconds since 1970, so that every
// dialect orders them alike. A row whose Withdraws is not 0 is no label: it
// withdraws the row with that id (Withdraw), which stays in the table.
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
	Withdraws  int64   `gorm:"column:withdraws;not null;default:0"`
}

func (labelRow) TableName() string { return "fusiontune_labels" }

func (r labelRow) label() Label {
	return Label{Dataset: r.Dataset, Query: r.QueryID, Doc: r.DocID, Grade: r.Grade, Judge: r.Judge, Source: r.Source,
		Time: time.Unix(0, r.TimeNS).UTC(), Rationale: r.Rationale, Confidence: r.Confidence}
}

// Open parses url (see ParseURL), connects, and creates the tables when
// missing. A SQLite file is created when absent (its directory must exist).
// Errors about the URL wrap ErrBadURL. Messages never show a password.
func Open(ctx context.Context, url string) (*Store, error) {
	loc, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	db, err := sqldb.Open(ctx, loc, sqldb.Options{What: "label store", BadURL: ErrBadURL, LockKey: migrationLockKey, Migrate: migrate})
	if err != nil {
		return nil, err
	}
	return &Store{Location: loc, db: db}, nil
}

// migrationLockKey is the PostgreSQL advisory lock taken while creating
// tables (differs from the study store's).
const migrationLockKey int64 = 0x66746c61_62656c73 // "ftlabels"

// migrate creates the tables when missing (sqldb runs it under a lock).
func migrate(tx *gorm.DB) error {
	if tx.Migrator().HasTable(&cacheRow{}) && tx.Migrator().HasColumn(&labelRow{}, "withdraws") {
		return nil // created last: everything is there (a store made before Withdraw gains its column)
	}
	if err := tx.AutoMigrate(&labelRow{}); err != nil {
		return fmt.Errorf("create label table: %w", err)
	}
	if err := tx.AutoMigrate(&cacheRow{}); err != nil {
		return fmt.Errorf("create cache table: %w", err)
	}
	return nil
}

// Close closes the database connections.
func (s *Store) Close() error {
	if err := sqldb.Close(s.db); err != nil {
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

// History returns every label of dataset ever appended, in append order,
// withdrawn ones included.
func (s *Store) History(ctx context.Context, dataset string) ([]Label, error) {
	var rows []labelRow
	if err := s.db.WithContext(ctx).Where("dataset = ? AND withdraws = 0", dataset).Order("id").Find(&rows).Error; err != nil {
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
// last), ordered by query, doc and judge (byte order). Withdrawn labels do
// not count: a judge's withdrawn label gives way to their label before it.
func (s *Store) Latest(ctx context.Context, dataset string) ([]Label, error) {
	var rows []labelRow
	if err := s.db.WithContext(ctx).Where("dataset = ?", dataset).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("labels of dataset %q: %w", dataset, err)
	}
	withdrawn := map[int64]bool{}
	for _, r := range rows {
		if r.Withdraws != 0 {
			withdrawn[r.Withdraws] = true
		}
	}
	type key struct{ q, d, j string }
	latest := map[key]labelRow{}
	for _, r := range rows {
		if r.Withdraws != 0 || withdrawn[r.ID] {
			continue
		}
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

// ErrNotStored is wrapped by Withdraw's error when the label to withdraw is
// not in the store (or already withdrawn).
var ErrNotStored = errors.New("label not stored")

// Withdraw withdraws the stored label l names (its dataset, query, doc,
// judge and Time; of two alike, the one appended last): it appends a row
// saying so, so the label stays in History while Latest no longer counts it
// (the judge's earlier label of the pair, if any, counts again). Undoing a
// label in tune ui is a Withdraw. A label not stored, or already withdrawn,
// is an error wrapping ErrNotStored.
func (s *Store) Withdraw(ctx context.Context, l Label) error {
	err := s.retry(ctx, func(tx *gorm.DB) error {
		var rows []labelRow
		err := tx.Where("dataset = ? AND query_id = ? AND doc_id = ? AND judge = ? AND time_ns = ? AND withdraws = 0",
			l.Dataset, l.Query, l.Doc, l.Judge, l.Time.UnixNano()).Order("id desc").Find(&rows).Error
		if err != nil {
			return err
		}
		for _, r := range rows {
			var n int64
			if err := tx.Model(&labelRow{}).Where("withdraws = ?", r.ID).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			w := r
			w.ID, w.Withdraws, w.TimeNS = 0, r.ID, time.Now().UTC().UnixNano()
			return tx.Create(&w).Error
		}
		return ErrNotStored
	})
	if err != nil {
		return fmt.Errorf("withdraw label of query %q doc %q by %q from %s: %w", l.Query, l.Doc, l.Judge, s.Location.Redacted, err)
	}
	return nil
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
	return sqldb.Transaction(ctx, s.db, fn)
}
