package studystore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/internal/sqldb"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Trial states as goptuna's RDB storage writes them.
const (
	stateRunning  = "RUNNING"
	stateComplete = "COMPLETE"
	statePruned   = "PRUNED"
	stateFail     = "FAIL"
	stateWaiting  = "WAITING"
)

// fixedParamsAttr is the system attribute goptuna's EnqueueTrial stores the
// queued parameters in; Trial.Suggest* returns them.
const fixedParamsAttr = "fixed_params"

// FailureAttr is the trial system attribute that says why this package
// failed a trial (a heartbeat timeout), for people reading the study.
const FailureAttr = "fusiontune:failure"

// WorkerAttr is the trial system attribute naming the worker that ran it.
const WorkerAttr = "fusiontune:worker"

// Errors callers branch on.
var (
	// ErrTrialLost means the trial is no longer this worker's to finish:
	// another worker declared it dead after a heartbeat timeout.
	ErrTrialLost = errors.New("trial lost: its heartbeat timed out and another worker failed it")
	// ErrTooManyFailures means the study has more failed trials than its
	// budget; the workers stop rather than fail forever.
	ErrTooManyFailures = errors.New("too many failed trials")
)

// trialRow maps the columns of goptuna's trials table this package reads
// and writes (goptuna's own model is unexported).
type trialRow struct {
	ID               int        `gorm:"column:trial_id;primaryKey"`
	Number           int        `gorm:"column:number"`
	StudyID          int        `gorm:"column:study_id"`
	State            string     `gorm:"column:state"`
	Value            float64    `gorm:"column:value"`
	DatetimeStart    *time.Time `gorm:"column:datetime_start"`
	DatetimeComplete *time.Time `gorm:"column:datetime_complete"`
}

func (trialRow) TableName() string { return "trials" }

// systemAttrRow maps goptuna's trial_system_attributes table.
type systemAttrRow struct {
	ID      int    `gorm:"column:trial_system_attribute_id;primaryKey"`
	TrialID int    `gorm:"column:trial_id"`
	Key     string `gorm:"column:key"`
	Value   string `gorm:"column:value"`
}

func (systemAttrRow) TableName() string { return "trial_system_attributes" }

// studyRow maps goptuna's studies table, for the per-study lock.
type studyRow struct {
	ID int `gorm:"column:study_id;primaryKey"`
}

func (studyRow) TableName() string { return "studies" }

// heartbeat is this package's table: the last sign of life of the worker
// running a trial, in the worker's clock (milliseconds since the epoch).
type heartbeat struct {
	TrialID int    `gorm:"column:trial_id;primaryKey;autoIncrement:false"`
	Worker  string `gorm:"column:worker;type:varchar(255);not null"`
	BeatMS  int64  `gorm:"column:beat_unix_ms;not null"`
}

func (heartbeat) TableName() string { return "fusiontune_heartbeats" }

// Outcome says what Next did.
type Outcome int

const (
	// Claimed means the worker now owns a RUNNING trial.
	Claimed Outcome = iota
	// Busy means the budget is taken by trials still running or queued
	// elsewhere; ask again later (one may fail and free its slot).
	Busy
	// Done means the study has its budget of finished trials.
	Done
)

// String names the outcome: claimed, busy or done.
func (o Outcome) String() string {
	switch o {
	case Claimed:
		return "claimed"
	case Busy:
		return "busy"
	case Done:
		return "done"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Claim is a trial a worker owns.
type Claim struct {
	// TrialID is goptuna's trial id (the storage key).
	TrialID int
	// Number is the trial's number within the study.
	Number int
	// Queued is true for a trial taken from the queue (EnqueueOnce, or
	// goptuna's EnqueueTrial) rather than created for a sampler.
	Queued bool
	// Spec is a queued trial's specification from EnqueueOnce ("" for
	// others).
	Spec string
}

// Next claims the study's next trial for worker, in one transaction that
// holds the study's row lock (SQLite: the database write lock): the oldest
// WAITING (queued) trial moves to RUNNING, or else, while fewer than budget
// trials are finished, running or queued, a new RUNNING trial is created for
// the sampler to fill. Failed trials do not count, so the slot of a dead
// worker's trial is taken again. A zero budget means no limit on created
// trials. The claim's heartbeat is written in the same transaction.
func (s *Store) Next(ctx context.Context, studyID, budget int, worker string) (Claim, Outcome, error) {
	var claim Claim
	outcome := Done
	err := s.retry(ctx, func(tx *gorm.DB) error {
		claim, outcome = Claim{}, Done
		if err := lockStudy(tx, studyID); err != nil {
			return err
		}
		counts, err := countStates(tx, studyID)
		if err != nil {
			return err
		}
		now := time.Now()
		if counts[stateWaiting] > 0 {
			next, ok, err := claimQueued(tx, studyID, now)
			if err != nil {
				return err
			}
			if ok {
				sp, err := spec(tx, next.ID)
				if err != nil {
					return err
				}
				claim = Claim{TrialID: next.ID, Number: next.Number, Queued: true, Spec: sp}
				outcome = Claimed
				return s.startBeat(tx, next.ID, worker, now)
			}
		}
		if outcome, err = room(counts, budget, studyID); err != nil || outcome != Claimed {
			return err
		}
		id, number, err := insertTrial(tx, studyID, stateRunning, &now)
		if err != nil {
			return err
		}
		claim = Claim{TrialID: id, Number: number}
		return s.startBeat(tx, id, worker, now)
	})
	if err != nil {
		return Claim{}, Done, fmt.Errorf("next trial of study %d: %w", studyID, err)
	}
	return claim, outcome, nil
}

// countStates counts the study's trials by state.
func countStates(tx *gorm.DB, studyID int) (map[string]int, error) {
	var rows []struct {
		State string
		N     int
	}
	if err := tx.Model(&trialRow{}).Select("state, count(*) as n").Where("study_id = ?", studyID).Group("state").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("count trials: %w", err)
	}
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.State] = r.N
	}
	return counts, nil
}

// claimQueued moves the study's oldest WAITING trial to RUNNING, started
// at now, and returns it; false when another claimer took it first. The
// state condition makes the claim safe even against a claimer that does
// not take the study lock (goptuna's own Optimize): only one UPDATE can
// move it out of WAITING.
func claimQueued(tx *gorm.DB, studyID int, now time.Time) (trialRow, bool, error) {
	var next trialRow
	if err := tx.Where("study_id = ? AND state = ?", studyID, stateWaiting).Order("trial_id").First(&next).Error; err != nil {
		return next, false, fmt.Errorf("find queued trial: %w", err)
	}
	res := tx.Model(&trialRow{}).Where("trial_id = ? AND state = ?", next.ID, stateWaiting).
		Updates(map[string]any{"state": stateRunning, "datetime_start": now})
	if res.Error != nil {
		return next, false, fmt.Errorf("claim queued trial %d: %w", next.ID, res.Error)
	}
	return next, res.RowsAffected == 1, nil
}

// room says, from the study's trial counts by state, whether a new trial
// may be created under budget (0: no limit): Claimed when it may, Done
// when budget trials are finished (complete or pruned), Busy when the
// rest of the budget is running or queued elsewhere. Failed trials do not
// count, but more failures than the budget is ErrTooManyFailures.
func room(counts map[string]int, budget, studyID int) (Outcome, error) {
	if budget <= 0 {
		return Claimed, nil
	}
	finished := counts[stateComplete] + counts[statePruned]
	if finished >= budget {
		return Done, nil
	}
	if counts[stateFail] > budget {
		return Done, fmt.Errorf("%w: %d failed trials in study %d (budget %d)", ErrTooManyFailures, counts[stateFail], studyID, budget)
	}
	if finished+counts[stateRunning]+counts[stateWaiting] >= budget {
		return Busy, nil
	}
	return Claimed, nil
}

// lockStudy takes the study row lock (SELECT ... FOR UPDATE; SQLite drops
// the clause and relies on the immediate transaction's write lock).
func lockStudy(tx *gorm.DB, studyID int) error {
	var st studyRow
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&st, "study_id = ?", studyID).Error; err != nil {
		return fmt.Errorf("lock study %d: %w", studyID, err)
	}
	return nil
}

// insertTrial adds a trial and numbers it as goptuna does (the count of the
// study's earlier trials); the caller holds the study lock.
func insertTrial(tx *gorm.DB, studyID int, state string, start *time.Time) (id, number int, err error) {
	row := trialRow{StudyID: studyID, State: state, DatetimeStart: start}
	if err := tx.Create(&row).Error; err != nil {
		return 0, 0, fmt.Errorf("create trial: %w", err)
	}
	var n int64
	if err := tx.Model(&trialRow{}).Where("study_id = ? AND trial_id < ?", studyID, row.ID).Count(&n).Error; err != nil {
		return 0, 0, fmt.Errorf("number trial %d: %w", row.ID, err)
	}
	if err := tx.Model(&trialRow{}).Where("trial_id = ?", row.ID).Update("number", n).Error; err != nil {
		return 0, 0, fmt.Errorf("number trial %d: %w", row.ID, err)
	}
	return row.ID, int(n), nil
}

// startBeat records the first heartbeat and the owning worker of a claim.
func (s *Store) startBeat(tx *gorm.DB, trialID int, worker string, now time.Time) error {
	hb := heartbeat{TrialID: trialID, Worker: worker, BeatMS: now.UnixMilli()}
	if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&hb).Error; err != nil {
		return fmt.Errorf("heartbeat of trial %d: %w", trialID, err)
	}
	attr := systemAttrRow{TrialID: trialID, Key: WorkerAttr, Value: worker}
	if err := tx.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "trial_id"}, {Name: "key"}},
		DoUpdates: clause.AssignmentColumns([]string{"value"}),
	}).Create(&attr).Error; err != nil {
		return fmt.Errorf("worker of trial %d: %w", trialID, err)
	}
	return nil
}

// Beat renews worker's heartbeat on trialID. It returns ErrTrialLost when
// the trial was failed by another worker.
func (s *Store) Beat(ctx context.Context, trialID int, worker string) error {
	res := s.db.WithContext(ctx).Model(&heartbeat{}).Where("trial_id = ? AND worker = ?", trialID, worker).
		Update("beat_unix_ms", time.Now().UnixMilli())
	if res.Error != nil {
		return fmt.Errorf("heartbeat of trial %d: %w", trialID, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("heartbeat of trial %d: %w", trialID, ErrTrialLost)
	}
	return nil
}

// KeepAlive beats for trialID every interval until stop is called; stop
// returns the first error other than a cancelled context, ErrTrialLost
// included.
func (s *Store) KeepAlive(ctx context.Context, trialID int, worker string, every time.Duration) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		var first error
		for {
			select {
			case <-ctx.Done():
				done <- first
				return
			case <-t.C:
				if err := s.Beat(ctx, trialID, worker); err != nil && first == nil && ctx.Err() == nil {
					first = err
				}
			}
		}
	}()
	return func() error {
		cancel()
		return <-done
	}
}

// Finish records the value and final state (COMPLETE, PRUNED or FAIL) of a
// trial worker owns, and its record when not nil, in one transaction and
// only if the trial is still RUNNING: a trial failed meanwhile by the
// heartbeat rule gives ErrTrialLost and keeps its FAIL state, without a
// record.
func (s *Store) Finish(ctx context.Context, trialID int, state string, value float64, worker string, record []byte) error {
	switch state {
	case stateComplete, statePruned, stateFail:
	default:
		return fmt.Errorf("finish trial %d: state %q is not final", trialID, state)
	}
	return s.retry(ctx, func(tx *gorm.DB) error {
		res := tx.Model(&trialRow{}).Where("trial_id = ? AND state = ?", trialID, stateRunning).
			Updates(map[string]any{"state": state, "value": value, "datetime_complete": time.Now()})
		if res.Error != nil {
			return fmt.Errorf("finish trial %d: %w", trialID, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("finish trial %d: %w", trialID, ErrTrialLost)
		}
		if err := tx.Delete(&heartbeat{}, "trial_id = ?", trialID).Error; err != nil {
			return fmt.Errorf("finish trial %d: %w", trialID, err)
		}
		if record == nil {
			return nil
		}
		var t trialRow
		if err := tx.First(&t, "trial_id = ?", trialID).Error; err != nil {
			return fmt.Errorf("finish trial %d: %w", trialID, err)
		}
		row := recordRow{TrialID: trialID, StudyID: t.StudyID, Worker: worker, Record: string(record)}
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("finish trial %d: save record: %w", trialID, err)
		}
		return nil
	})
}

// retry runs fn in a transaction, again after a transient lock conflict.
func (s *Store) retry(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return sqldb.Transaction(ctx, s.db, fn)
}
