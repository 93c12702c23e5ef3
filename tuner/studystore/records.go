package studystore

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ErrStudyMismatch is wrapped when a worker's study settings (such as its
// primary score) differ from those the study was started with.
var ErrStudyMismatch = errors.New("study settings differ")

// recordRow is this package's table of finished trials' records (the JSON
// each worker also writes to its own run directory), so that one command
// can build the study's combined leaderboard from the database.
type recordRow struct {
	TrialID int    `gorm:"column:trial_id;primaryKey;autoIncrement:false"`
	StudyID int    `gorm:"column:study_id;index;not null"`
	Worker  string `gorm:"column:worker;type:varchar(255);not null"`
	Record  string `gorm:"column:record;type:text;not null"`
}

func (recordRow) TableName() string { return "fusiontune_trial_records" }

// studyAttrRow maps goptuna's study_user_attributes table.
type studyAttrRow struct {
	ID      int    `gorm:"column:study_user_attribute_id;primaryKey"`
	StudyID int    `gorm:"column:study_id"`
	Key     string `gorm:"column:key"`
	Value   string `gorm:"column:value"`
}

func (studyAttrRow) TableName() string { return "study_user_attributes" }

// Record is one finished trial's record as a worker saved it.
type Record struct {
	// TrialID, Number and State are the trial's in the study.
	TrialID, Number int
	State           string
	// Worker saved the record.
	Worker string
	// JSON is the record itself.
	JSON []byte
}

// EnsureStudyAttr sets the study's user attribute key to value, or, when
// another worker set it first, checks it holds the same value (wrapping
// ErrStudyMismatch otherwise). Workers use it to agree on what the study
// measures before running trials.
func (s *Store) EnsureStudyAttr(ctx context.Context, studyID int, key, value string) error {
	return s.retry(ctx, func(tx *gorm.DB) error {
		row := studyAttrRow{StudyID: studyID, Key: key, Value: value}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error; err != nil {
			return fmt.Errorf("study attribute %q: %w", key, err)
		}
		var got studyAttrRow
		// Struct conditions: gorm quotes "key", a reserved word in MySQL.
		if err := tx.Where(&studyAttrRow{StudyID: studyID, Key: key}).First(&got).Error; err != nil {
			return fmt.Errorf("study attribute %q: %w", key, err)
		}
		if got.Value != value {
			return fmt.Errorf("%w: %s is %q in the study, %q here", ErrStudyMismatch, key, got.Value, value)
		}
		return nil
	})
}

// Records returns the saved records of the study's finished trials in
// trial-number order. Trials failed by the heartbeat rule have none.
func (s *Store) Records(ctx context.Context, studyID int) ([]Record, error) {
	var rows []struct {
		TrialID int
		Number  int
		State   string
		Worker  string
		Record  string
	}
	err := s.db.WithContext(ctx).Table("fusiontune_trial_records AS r").
		Select("r.trial_id, t.number, t.state, r.worker, r.record").
		Joins("JOIN trials t ON t.trial_id = r.trial_id").
		Where("r.study_id = ? AND t.state IN ?", studyID, []string{stateComplete, statePruned, stateFail}).
		Order("t.number").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("records of study %d: %w", studyID, err)
	}
	out := make([]Record, len(rows))
	for i, r := range rows {
		out[i] = Record{TrialID: r.TrialID, Number: r.Number, State: r.State, Worker: r.Worker, JSON: []byte(r.Record)}
	}
	return out, nil
}

// StudyID returns the id of the study named name, or an error wrapping
// ErrNoStudy when there is none.
func (s *Store) StudyID(ctx context.Context, name string) (int, error) {
	var row struct{ StudyID int }
	res := s.db.WithContext(ctx).Table("studies").Select("study_id").Where("study_name = ?", name).Limit(1).Scan(&row)
	if res.Error != nil {
		return 0, fmt.Errorf("study %q: %w", name, res.Error)
	}
	if res.RowsAffected == 0 {
		return 0, fmt.Errorf("study %q: %w", name, ErrNoStudy)
	}
	return row.StudyID, nil
}

// ErrNoStudy is wrapped when a named study does not exist in the storage.
var ErrNoStudy = errors.New("no such study in the storage")
