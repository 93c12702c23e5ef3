package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// TrialBatch records many trials with one flush to disk instead of an
// fsync per file: the replay evaluates a trial in about a millisecond,
// which per-file fsyncs (tens of milliseconds each) would dwarf. Record
// writes each trial's two files as temporaries; Flush fsyncs them all at
// once, renames them into place (queries first, the record last, as
// RecordTrial does) and fsyncs the directory.
// A crash before Flush returns loses the batch's trials but never leaves a
// partial file under a final name. The files are those of RecordTrial,
// byte for byte.
//
// Replayed trials (EncodeReplayed) have no per-query file: the batch
// writes their records as the lines of one file, trials/replayed-NNN.jsonl
// (NNN: the lowest index among them), at Flush, so that a replayed trial
// costs no file of its own.
type TrialBatch struct {
	r        *Run
	pending  [][2]string // temporary path, final path
	replayed []*EncodedTrial
	added    []*EncodedTrial // live trials, kept in the run's memo once durable
	// records are the live trials' record files as written (redacted),
	// whose records the run's memo keeps once durable.
	records [][]byte
}

// NewTrialBatch starts a batch of trial records for r.
func (r *Run) NewTrialBatch() *TrialBatch { return &TrialBatch{r: r} }

// EncodedTrial is a trial record and its per-query results encoded as
// RecordTrial writes them.
type EncodedTrial struct {
	index         int
	lines, record []byte
	replayed      bool // record is one compact line of a replayed-NNN.jsonl
	queries       []QueryResult
}

// EncodeTrial encodes trial t and its per-query results. A replayed trial
// (t.Replay set) has none: it is encoded by EncodeReplayed. It is safe for
// concurrent use, so callers can encode trials in parallel and Add them
// in order.
func EncodeTrial(t TrialRecord, queries []QueryResult) (*EncodedTrial, error) {
	if t.Replay != nil {
		if len(queries) > 0 {
			return nil, fmt.Errorf("runs: encode trial %q: a replayed trial stores no per-query results (%d given)", t.Name, len(queries))
		}
		return EncodeReplayed(t)
	}
	lines, err := encodeQueries(t, queries)
	if err != nil {
		return nil, err
	}
	rec, err := MarshalJSON(t)
	if err != nil {
		return nil, fmt.Errorf("runs: encode trial %q: %w", t.Name, err)
	}
	return &EncodedTrial{index: t.Index, lines: lines, record: rec, queries: queries}, nil
}

// EncodeReplayed encodes replayed trial t, whose per-query results are
// derived from its collection (t.Replay must be set), as one line of a
// replayed-NNN.jsonl file. It is safe for concurrent use.
func EncodeReplayed(t TrialRecord) (*EncodedTrial, error) {
	if t.Replay == nil {
		return nil, fmt.Errorf("runs: encode trial %q: not a replayed trial (no replay reference)", t.Name)
	}
	rec, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("runs: encode trial %q: %w", t.Name, err)
	}
	return &EncodedTrial{index: t.Index, record: append(rec, '\n'), replayed: true}, nil
}

// Record encodes trial t and its per-query results and Adds them.
func (b *TrialBatch) Record(t TrialRecord, queries []QueryResult) error {
	e, err := EncodeTrial(t, queries)
	if err != nil {
		return err
	}
	return b.Add(e)
}

// Add writes an encoded trial as temporaries; it is in place and durable
// once Flush returns.
func (b *TrialBatch) Add(e *EncodedTrial) error {
	if e.replayed {
		b.replayed = append(b.replayed, e)
		return nil
	}
	base := filepath.Join(b.r.Dir, TrialsDir, fmt.Sprintf("%03d", e.index))
	memoize := e.queries != nil
	for i, f := range []struct {
		path string
		data []byte
	}{{base + ".queries.jsonl", e.lines}, {base + ".json", e.record}} {
		// Every file of a run goes through the run's redactor, as in
		// Run.WriteFile: a batch is no way around it.
		data := b.r.Redact.Bytes(f.data)
		tmp, err := writeTemp(f.path, data)
		if err != nil {
			return err
		}
		b.pending = append(b.pending, [2]string{tmp, f.path})
		if i == 1 {
			b.records = append(b.records, data)
		}
		if i == 0 && !bytes.Equal(data, f.data) {
			// The file says less than the results in memory: whoever
			// reads them reads the file.
			memoize = false
		}
	}
	if memoize {
		b.added = append(b.added, e)
	}
	return nil
}

// Len is the number of trials waiting for Flush.
func (b *TrialBatch) Len() int { return len(b.pending)/2 + len(b.replayed) }

// Flush makes every recorded trial durable and visible. A replayed line
// replaces the files an earlier record of the same trial left (a failed
// trial retried by --resume --retry-failed): the run holds one record a
// trial.
func (b *TrialBatch) Flush() error {
	replaced, err := b.stageReplayed()
	if err != nil {
		return b.abort(err)
	}
	if len(b.pending) == 0 {
		return nil
	}
	dir := filepath.Join(b.r.Dir, TrialsDir)
	if err := syncFiles(b.pending); err != nil {
		return b.abort(fmt.Errorf("runs: flush trials: %w", err))
	}
	for i, p := range b.pending {
		if err := os.Rename(p[0], p[1]); err != nil {
			b.pending = b.pending[i:]
			return b.abort(fmt.Errorf("runs: flush trials: %w", err))
		}
	}
	b.pending = nil
	memo := b.r.memo()
	for _, e := range b.added {
		memo.remember(e.index, e.queries, len(e.lines))
	}
	b.added = nil
	for _, data := range b.records {
		// The record as reading its file gives it (a record that does
		// not decode is read, and its error reported, by Trials).
		var t TrialRecord
		if json.Unmarshal(data, &t) == nil {
			memo.rememberRecord(t)
		}
	}
	b.records = nil
	if err := removeShadowed(dir, memo, replaced); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err == nil {
		err = errors.Join(d.Sync(), d.Close())
	}
	if err != nil {
		return fmt.Errorf("runs: flush trials: %w", err)
	}
	return nil
}

// stageReplayed writes the replayed trials' lines waiting in the batch to
// a temporary file, queued (pending) for its place in the trials
// directory, named after the first of their indices. It returns those
// indices: the trials whose earlier files the line replaces.
func (b *TrialBatch) stageReplayed() ([]int, error) {
	if len(b.replayed) == 0 {
		return nil, nil
	}
	var replaced []int
	first := b.replayed[0].index
	var data []byte
	for _, e := range b.replayed {
		first = min(first, e.index)
		data = append(data, e.record...)
		replaced = append(replaced, e.index)
	}
	path := filepath.Join(b.r.Dir, TrialsDir, fmt.Sprintf("%s%03d.jsonl", ReplayedPrefix, first))
	tmp, err := writeTemp(path, b.r.Redact.Bytes(data))
	if err != nil {
		return nil, err
	}
	b.replayed = nil
	b.pending = append(b.pending, [2]string{tmp, path})
	return replaced, nil
}

// removeShadowed removes, from the trials directory dir and from memo, the
// files of their own that the replaced trials were recorded in before (a
// failed trial run again by --retry-failed: a failure has no replay
// reference): they would shadow the new line (Trials reads NNN.json
// first). The per-query results go first, so that a crash in between
// leaves the old record whole (still failed, retried again) and never a
// stale results file under the new one.
func removeShadowed(dir string, memo *resultMemo, replaced []int) error {
	for _, i := range replaced {
		memo.forget(i)
		base := filepath.Join(dir, fmt.Sprintf("%03d", i))
		for _, p := range []string{base + ".queries.jsonl", base + ".json"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("runs: flush trials: %w", err)
			}
		}
	}
	return nil
}

// flushParallel bounds the concurrent fsyncs of a Flush.
const flushParallel = 32

// syncFiles fsyncs the temporaries concurrently: the file system commits
// concurrent fsyncs together (measured here: 110 files of 500 kB in about
// 30 ms at once, 3 ms each one by one), and unlike syncfs(2) they do not
// wait for other programs' dirty data.
func syncFiles(pending [][2]string) error {
	errs := make([]error, len(pending))
	sem := make(chan struct{}, flushParallel)
	var wg sync.WaitGroup
	for i, p := range pending {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f, err := os.OpenFile(p[0], os.O_WRONLY, 0)
			if err == nil {
				err = errors.Join(f.Sync(), f.Close())
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Abort drops the trials recorded since the last Flush, removing their
// temporaries.
func (b *TrialBatch) Abort() {
	for _, p := range b.pending {
		os.Remove(p[0])
	}
	b.pending, b.replayed, b.added, b.records = nil, nil, nil, nil
}

func (b *TrialBatch) abort(err error) error {
	b.Abort()
	return err
}

// writeTemp writes data to the temporary file .NAME.batch beside path,
// unsynced, replacing a stale one a crash may have left.
func writeTemp(path string, data []byte) (string, error) {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".batch")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tmp, nil
}
