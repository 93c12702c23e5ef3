package studystore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/c-bata/goptuna"
	rdb "github.com/c-bata/goptuna/rdb.v2"
	"github.com/fusiontune/fusiontune/internal/sqldb"
	"gorm.io/gorm"
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

// Open parses rawURL, connects, and creates goptuna's tables and this
// package's heartbeat table when missing. Opening the same database again,
// from any number of workers at once, changes nothing. Errors about the URL
// wrap ErrBadURL.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	db, err := sqldb.Open(ctx, loc, sqldb.Options{
		What: "study storage", BadURL: ErrBadURL, SQLitePragmas: "&_pragma=foreign_keys(1)",
		LockKey: migrationLockKey, Migrate: migrate,
	})
	if err != nil {
		return nil, err
	}
	return &Store{Storage: rdb.NewStorage(db), Location: loc, db: db}, nil
}

// migrate creates the tables when missing (sqldb runs it under a lock).
func migrate(tx *gorm.DB) error {
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

// migrationLockKey is the PostgreSQL advisory lock taken while creating
// tables ("fusiontune" in ASCII, truncated to 64 bits).
const migrationLockKey int64 = 0x66757369_6f6e7475

// Close closes the database connections.
func (s *Store) Close() error {
	if err := sqldb.Close(s.db); err != nil {
		return fmt.Errorf("close study storage: %w", err)
	}
	return nil
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
