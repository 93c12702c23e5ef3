package studystore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// SpecAttr is the trial system attribute holding a queued trial's
// specification (the caller's JSON: name and parameters).
const SpecAttr = "fusiontune:spec"

// queuedAttr is the study attribute marking that its queue was filled,
// holding a hash of the specs.
const queuedAttr = "fusiontune:queued"

// EnqueueOnce puts one WAITING trial per spec in the study's queue, once:
// the first worker to call it fills the queue, in one transaction under
// the study lock; later calls with the same specs change nothing and calls
// with other specs fail with ErrStudyMismatch. It reports whether this call
// filled the queue.
func (s *Store) EnqueueOnce(ctx context.Context, studyID int, specs []string) (bool, error) {
	sum := sha256.Sum256([]byte(strings.Join(specs, "\n")))
	hash := fmt.Sprintf("%d:%s", len(specs), hex.EncodeToString(sum[:8]))
	filled := false
	err := s.retry(ctx, func(tx *gorm.DB) error {
		filled = false
		if err := lockStudy(tx, studyID); err != nil {
			return err
		}
		var got []studyAttrRow
		if err := tx.Where(&studyAttrRow{StudyID: studyID, Key: queuedAttr}).Find(&got).Error; err != nil {
			return fmt.Errorf("queue of study %d: %w", studyID, err)
		}
		if len(got) > 0 {
			if got[0].Value != hash {
				return fmt.Errorf("%w: the study's queue holds other trials (%s, here %s): the experiment file differs", ErrStudyMismatch, got[0].Value, hash)
			}
			return nil
		}
		for _, spec := range specs {
			id, _, err := insertTrial(tx, studyID, stateWaiting, nil)
			if err != nil {
				return err
			}
			if err := tx.Create(&systemAttrRow{TrialID: id, Key: SpecAttr, Value: spec}).Error; err != nil {
				return fmt.Errorf("queue trial: %w", err)
			}
		}
		if err := tx.Create(&studyAttrRow{StudyID: studyID, Key: queuedAttr, Value: hash}).Error; err != nil {
			return fmt.Errorf("queue of study %d: %w", studyID, err)
		}
		filled = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("enqueue: %w", err)
	}
	return filled, nil
}

// spec returns a queued trial's specification ("" when it has none).
func spec(tx *gorm.DB, trialID int) (string, error) {
	var rows []systemAttrRow
	if err := tx.Where(&systemAttrRow{TrialID: trialID, Key: SpecAttr}).Find(&rows).Error; err != nil {
		return "", fmt.Errorf("spec of trial %d: %w", trialID, err)
	}
	if len(rows) == 0 {
		return "", nil
	}
	return rows[0].Value, nil
}

// Abandon gives up a trial worker owns (an interrupted worker): it fails
// at once, and a queued one goes back in the queue, as the heartbeat rule
// would do after the timeout.
func (s *Store) Abandon(ctx context.Context, trialID int, worker, why string) error {
	var t trialRow
	if err := s.db.WithContext(ctx).First(&t, "trial_id = ?", trialID).Error; err != nil {
		return fmt.Errorf("abandon trial %d: %w", trialID, err)
	}
	_, _, err := s.reapOne(ctx, t, worker, fmt.Sprintf("worker %q: %s", worker, why))
	return err
}
