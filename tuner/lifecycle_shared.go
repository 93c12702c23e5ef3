package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/sampler"
	"github.com/fusiontune/fusiontune/tuner/studystore"
)

// sharedConfig is c.Shared with at least one replica, checked: more than
// one replica needs a backend that can open replicas of itself.
func (c Config) sharedConfig() (SharedConfig, error) {
	sh := *c.Shared
	if sh.Parallel < 1 {
		sh.Parallel = 1
	}
	if _, ok := c.Backend.(backend.Replicator); sh.Parallel > 1 && !ok {
		return sh, inputerr.Wrap(fmt.Errorf("--parallel %d: replicas need the embedded backend (each its own tune serve); with backend.kind %q run one worker per service", sh.Parallel, c.Manifest.Backend))
	}
	return sh, nil
}

// sharedStudy is the study the workers share: the file's space (none: only
// its own trials, shared) under the study's name.
func sharedStudy(c Config, sh SharedConfig) sampler.Options {
	var so sampler.Options
	if c.Study != nil {
		so = *c.Study
	}
	so.StudyName = sh.Study
	if so.StudyName == "" {
		so.StudyName = sampler.DefaultStudyName
	}
	return so
}

// openSharedRun opens the study database and creates this worker's run.
// A database named by the user is opened before the run directory exists,
// so a bad URL leaves nothing behind; without one (--parallel alone) the
// study lives in the run directory. The database is returned for closing
// even with an error.
func openSharedRun(ctx context.Context, c Config, sh SharedConfig, so sampler.Options) (*runs.Run, *studystore.Store, error) {
	var db *studystore.Store
	var err error
	if sh.URL != "" {
		if db, err = openStudyStore(ctx, sh.URL); err != nil {
			return nil, nil, err
		}
	}
	m := c.Manifest
	m.Trials, m.Seed = len(c.Trials)+so.Trials, so.Seed
	run, err := c.Store.Create(m, time.Now())
	if err != nil {
		return nil, db, err
	}
	if c.Snapshot != nil {
		if err := c.Snapshot(run); err != nil {
			return nil, db, err
		}
	}
	if db == nil {
		if db, err = openStudyStore(ctx, "sqlite:///"+filepath.Join(run.Dir, "study.db")); err != nil {
			return nil, nil, err
		}
	}
	return run, db, nil
}

// sharedRecord is a trial as a shared study's database keeps it: the
// record and its per-query results, so that every worker can score the
// whole study.
type sharedRecord struct {
	runs.TrialRecord
	QueryResults []runs.QueryResult `json:"query_results,omitempty"`
}

// importStudy records in run every finished trial of the study that run
// does not hold yet (other workers' trials), with its per-query results.
// A record saved without per-query results (an older worker) is left out:
// it could not be compared. It returns how many it recorded.
func importStudy(ctx context.Context, db *studystore.Store, study string, run *runs.Run) (int, error) {
	id, err := db.StudyID(ctx, study)
	if err != nil {
		return 0, err
	}
	recs, err := db.Records(ctx, id)
	if err != nil {
		return 0, err
	}
	have, err := run.Trials()
	if err != nil {
		return 0, err
	}
	held := make(map[int]bool, len(have))
	for _, t := range have {
		held[t.Index] = true
	}
	n := 0
	for _, r := range recs {
		var sr sharedRecord
		if err := json.Unmarshal(r.JSON, &sr); err != nil {
			return n, fmt.Errorf("study %q: record of trial %d: %w", study, r.Number, err)
		}
		if held[sr.Index] || sr.QueryResults == nil {
			continue
		}
		if err := run.RecordTrial(sr.TrialRecord, sr.QueryResults); err != nil {
			return n, fmt.Errorf("study %q: record trial %q: %w", study, sr.Name, err)
		}
		n++
	}
	return n, nil
}
