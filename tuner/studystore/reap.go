package studystore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// DefaultHeartbeatTimeout is how long a running trial may go without a
// heartbeat before another worker fails it. Workers beat every
// DefaultHeartbeatInterval; the gap allows for slow writes and modest clock
// differences between machines.
const (
	DefaultHeartbeatTimeout  = 60 * time.Second
	DefaultHeartbeatInterval = 5 * time.Second
)

// Reaped is a trial the heartbeat rule failed.
type Reaped struct {
	// TrialID and Number identify the failed trial.
	TrialID, Number int
	// Worker is the worker whose heartbeat stopped ("" when the trial had
	// none, e.g. one created by plain goptuna code).
	Worker string
	// Requeued is the id of the WAITING copy of a queued trial, 0 for a
	// sampled trial (the sampler proposes a new one instead).
	Requeued int
}

// ReapStale fails every RUNNING trial of the study whose last heartbeat
// (or start, when it has none) is older than timeout at now, and puts a
// WAITING copy of each queued one (same fixed parameters) back in the queue,
// so that the study completes without the dead worker. Each trial moves out
// of RUNNING in its own transaction, conditionally, so two reapers (or a
// late finish by the presumed-dead worker) cannot both win.
func (s *Store) ReapStale(ctx context.Context, studyID int, timeout time.Duration, now time.Time) ([]Reaped, error) {
	db := s.db.WithContext(ctx)
	var running []trialRow
	if err := db.Where("study_id = ? AND state = ?", studyID, stateRunning).Order("trial_id").Find(&running).Error; err != nil {
		return nil, fmt.Errorf("reap study %d: %w", studyID, err)
	}
	if len(running) == 0 {
		return nil, nil
	}
	ids := make([]int, len(running))
	for i, t := range running {
		ids[i] = t.ID
	}
	var beats []heartbeat
	if err := db.Where("trial_id IN ?", ids).Find(&beats).Error; err != nil {
		return nil, fmt.Errorf("reap study %d: heartbeats: %w", studyID, err)
	}
	last := make(map[int]heartbeat, len(beats))
	for _, b := range beats {
		last[b.TrialID] = b
	}
	cutoff := now.Add(-timeout)
	var out []Reaped
	for _, t := range running {
		hb, ok := last[t.ID]
		var seen time.Time
		switch {
		case ok:
			seen = time.UnixMilli(hb.BeatMS)
		case t.DatetimeStart != nil:
			seen = *t.DatetimeStart
		default:
			seen = now // no sign of when it started: leave it alone
		}
		if !seen.Before(cutoff) {
			continue
		}
		reason := fmt.Sprintf("no heartbeat since %s (timeout %s)", seen.UTC().Format(time.RFC3339), timeout)
		if hb.Worker != "" {
			reason = fmt.Sprintf("worker %q: %s", hb.Worker, reason)
		}
		r, won, err := s.reapOne(ctx, t, hb.Worker, reason)
		if err != nil {
			return out, err
		}
		if won {
			out = append(out, r)
		}
	}
	return out, nil
}

// reapOne fails one stale trial and re-queues it when it came from the queue.
func (s *Store) reapOne(ctx context.Context, t trialRow, worker, reason string) (Reaped, bool, error) {
	r := Reaped{TrialID: t.ID, Number: t.Number, Worker: worker}
	won := false
	err := s.retry(ctx, func(tx *gorm.DB) error {
		won = false
		r.Requeued = 0
		if err := lockStudy(tx, t.StudyID); err != nil {
			return err
		}
		res := tx.Model(&trialRow{}).Where("trial_id = ? AND state = ?", t.ID, stateRunning).
			Updates(map[string]any{"state": stateFail, "datetime_complete": time.Now()})
		if res.Error != nil {
			return fmt.Errorf("fail trial %d: %w", t.ID, res.Error)
		}
		if res.RowsAffected == 0 {
			return nil // finished or reaped meanwhile
		}
		won = true
		if err := tx.Delete(&heartbeat{}, "trial_id = ?", t.ID).Error; err != nil {
			return fmt.Errorf("fail trial %d: %w", t.ID, err)
		}
		if err := tx.Create(&systemAttrRow{TrialID: t.ID, Key: FailureAttr, Value: reason}).Error; err != nil {
			return fmt.Errorf("fail trial %d: %w", t.ID, err)
		}
		var attrs []systemAttrRow
		if err := tx.Where("trial_id = ?", t.ID).Find(&attrs).Error; err != nil {
			return fmt.Errorf("fail trial %d: %w", t.ID, err)
		}
		queued := false
		for _, a := range attrs {
			if a.Key == fixedParamsAttr || a.Key == SpecAttr {
				queued = true
			}
		}
		if !queued {
			return nil
		}
		id, _, err := insertTrial(tx, t.StudyID, stateWaiting, nil)
		if err != nil {
			return fmt.Errorf("requeue trial %d: %w", t.ID, err)
		}
		for _, a := range attrs {
			if a.Key == FailureAttr || a.Key == WorkerAttr {
				continue
			}
			if err := tx.Create(&systemAttrRow{TrialID: id, Key: a.Key, Value: a.Value}).Error; err != nil {
				return fmt.Errorf("requeue trial %d: %w", t.ID, err)
			}
		}
		if err := tx.Create(&systemAttrRow{TrialID: id, Key: "fusiontune:requeued_from", Value: fmt.Sprint(t.Number)}).Error; err != nil {
			return fmt.Errorf("requeue trial %d: %w", t.ID, err)
		}
		r.Requeued = id
		return nil
	})
	if err != nil {
		return Reaped{}, false, fmt.Errorf("reap trial %d: %w", t.ID, err)
	}
	return r, won, nil
}
