package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// TrialBatch records many trials with one flush to disk instead of an
// fsync per file: the replay evaluates a trial in about a millisecond,
// which per-file fsyncs (tens of milliseconds each) would dwarf. Record
// writes each trial's two files as temporaries; Flush makes the data
// durable with one file-system sync, renames the files into place
// (queries first, the record last, as RecordTrial does) and syncs again.
// A crash before Flush returns loses the batch's trials but never leaves a
// partial file under a final name. The files are those of RecordTrial,
// byte for byte.
type TrialBatch struct {
	r       *Run
	pending [][2]string // temporary path, final path
}

// NewTrialBatch starts a batch of trial records for r.
func (r *Run) NewTrialBatch() *TrialBatch { return &TrialBatch{r: r} }

// Record writes trial t and its per-query results as temporaries; they
// are in place and durable once Flush returns.
func (b *TrialBatch) Record(t TrialRecord, queries []QueryResult) error {
	base := filepath.Join(b.r.Dir, TrialsDir, fmt.Sprintf("%03d", t.Index))
	lines, err := encodeQueries(t, queries)
	if err != nil {
		return err
	}
	rec, err := MarshalJSON(t)
	if err != nil {
		return fmt.Errorf("runs: encode trial %q: %w", t.Name, err)
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{base + ".queries.jsonl", lines}, {base + ".json", rec}} {
		tmp, err := writeTemp(f.path, f.data)
		if err != nil {
			return err
		}
		b.pending = append(b.pending, [2]string{tmp, f.path})
	}
	return nil
}

// Len is the number of files waiting for Flush.
func (b *TrialBatch) Len() int { return len(b.pending) }

// Flush makes every recorded trial durable and visible.
func (b *TrialBatch) Flush() error {
	if len(b.pending) == 0 {
		return nil
	}
	dir := filepath.Join(b.r.Dir, TrialsDir)
	if err := syncDir(dir, b.pending); err != nil {
		return b.abort(fmt.Errorf("runs: flush trials: %w", err))
	}
	for i, p := range b.pending {
		if err := os.Rename(p[0], p[1]); err != nil {
			b.pending = b.pending[i:]
			return b.abort(fmt.Errorf("runs: flush trials: %w", err))
		}
	}
	b.pending = nil
	if err := syncDir(dir, nil); err != nil {
		return fmt.Errorf("runs: flush trials: %w", err)
	}
	return nil
}

// Abort drops the trials recorded since the last Flush, removing their
// temporaries.
func (b *TrialBatch) Abort() {
	for _, p := range b.pending {
		os.Remove(p[0])
	}
	b.pending = nil
}

func (b *TrialBatch) abort(err error) error {
	b.Abort()
	return err
}

// writeTemp writes data to a new temporary file beside path, unsynced.
func writeTemp(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o644)); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return f.Name(), nil
}
