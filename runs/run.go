package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fusiontune/fusiontune/internal/atomicfile"
)

// Run is one run directory.
type Run struct {
	Dir      string
	Manifest Manifest
	// LoadErr is set by Store.List when the run could not be read.
	LoadErr error
	// Redact, when set, scrubs secrets from every file the run writes.
	Redact *Redactor
	// Derive, when set, derives the per-query results of replayed trials.
	Derive Deriver

	memoized *resultMemo // see memo.go
}

// ID is the run's directory name.
func (r *Run) ID() string { return filepath.Base(r.Dir) }

// SaveManifest rewrites manifest.json atomically.
func (r *Run) SaveManifest() error {
	return r.WriteJSON(ManifestFile, r.Manifest)
}

// Finish records the final status and time in the manifest.
func (r *Run) Finish(status string, runErr error, now time.Time) error {
	r.Manifest.Status = status
	r.Manifest.Finished = now.UTC()
	if runErr != nil {
		r.Manifest.Error = runErr.Error()
	}
	return r.SaveManifest()
}

// WriteFile writes name inside the run directory atomically and durably.
func (r *Run) WriteFile(name string, data []byte) error {
	return WriteFileAtomic(filepath.Join(r.Dir, name), r.Redact.Bytes(data), 0o644)
}

// WriteJSON writes v as indented JSON (with a final newline) atomically.
func (r *Run) WriteJSON(name string, v any) error {
	data, err := MarshalJSON(v)
	if err != nil {
		return fmt.Errorf("runs: encode %s: %w", name, err)
	}
	return r.WriteFile(name, data)
}

// MarshalJSON encodes v the way every run file is encoded: two-space
// indentation, no HTML escaping, a final newline. Map keys are sorted by
// encoding/json, so equal values give identical bytes.
func MarshalJSON(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// RecordTrial writes a finished (or failed) trial: trials/NNN.json with the
// record and trials/NNN.queries.jsonl with the per-query results (a
// replayed trial: its record as trials/replayed-NNN.jsonl, see
// EncodeTrial). Both are durable on disk when RecordTrial returns.
//
// It is a batch of one: both files are written as temporaries, fsynced
// concurrently (one journal commit instead of two), renamed into place
// (the queries first, the record last: the record's presence marks the
// trial as finished) and the directory is fsynced once: two waits on the
// disk where writing the files one by one took four in sequence.
func (r *Run) RecordTrial(t TrialRecord, queries []QueryResult) error {
	b := r.NewTrialBatch()
	if err := b.Record(t, queries); err != nil {
		b.Abort()
		return err
	}
	return b.Flush()
}

// encodeQueries renders the per-query results of trial t as JSON lines.
func encodeQueries(t TrialRecord, queries []QueryResult) ([]byte, error) {
	var b []byte
	for i := range queries {
		var ok bool
		if b, ok = appendQueryResult(b, &queries[i]); ok {
			if i == 0 { // lines are alike: size the buffer once
				b = append(make([]byte, 0, len(b)*len(queries)*9/8+512), b...)
			}
			continue
		}
		// Not handled by the fast encoder: encoding/json says why.
		if _, err := json.Marshal(queries[i]); err != nil {
			return nil, fmt.Errorf("runs: encode query %q of trial %q: %w", queries[i].QueryID, t.Name, err)
		}
		return nil, fmt.Errorf("runs: encode query %q of trial %q: unsupported value", queries[i].QueryID, t.Name)
	}
	return b, nil
}

// ReplayedPrefix starts the name of a file under trials/ holding the
// records of replayed trials, one per line (see TrialBatch).
const ReplayedPrefix = "replayed-"

// Deriver derives the per-query results of trials that store none: a
// replayed trial keeps only its summary and a reference to the collection
// of candidate lists it was fused from (the tuner gives a Deriver that
// fuses them again).
type Deriver interface {
	// Derive returns the per-query results of trial index of run and ok
	// when it derives them; ok is false for a trial that stores its own.
	// Without hits the top hits and labels may be left out (the scores
	// are the same).
	Derive(run *Run, index int, hits bool) (results []QueryResult, ok bool, err error)
}

// Trials reads every recorded trial, ordered by index: the trials/NNN.json
// files and the lines of the trials/replayed-NNN.jsonl files. A trial
// recorded both ways (replayed, then verified live) is the NNN.json one.
func (r *Run) Trials() ([]TrialRecord, error) {
	matches, err := filepath.Glob(filepath.Join(r.Dir, TrialsDir, "[0-9][0-9][0-9].json"))
	if err != nil {
		return nil, err
	}
	out := make([]TrialRecord, 0, len(matches))
	have := make(map[int]bool, len(matches))
	memo := r.memo()
	for _, m := range matches {
		// The records this Run wrote are kept (memo.go), not read back.
		if i, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(m), ".json")); err == nil {
			if t, ok := memo.recallRecord(i); ok {
				out = append(out, t)
				have[t.Index] = true
				continue
			}
		}
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, fmt.Errorf("runs: %w", err)
		}
		var t TrialRecord
		if err := json.Unmarshal(data, &t); err != nil {
			return nil, fmt.Errorf("runs: %s: %w", m, err)
		}
		out = append(out, t)
		have[t.Index] = true
	}
	replayed, err := r.replayedTrials()
	if err != nil {
		return nil, err
	}
	for _, t := range replayed {
		if !have[t.Index] {
			out = append(out, t)
			have[t.Index] = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// replayedTrials reads the records of every replayed-NNN.jsonl file.
func (r *Run) replayedTrials() ([]TrialRecord, error) {
	files, err := filepath.Glob(filepath.Join(r.Dir, TrialsDir, ReplayedPrefix+"[0-9]*.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []TrialRecord
	for _, path := range files {
		err := readLines(path, func(line int, data []byte) error {
			var t TrialRecord
			if err := json.Unmarshal(data, &t); err != nil {
				return fmt.Errorf("runs: %s:%d: %w", path, line, err)
			}
			out = append(out, t)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Trial reads the record of trial index.
func (r *Run) Trial(index int) (TrialRecord, error) {
	all, err := r.Trials()
	if err != nil {
		return TrialRecord{}, err
	}
	for _, t := range all {
		if t.Index == index {
			return t, nil
		}
	}
	return TrialRecord{}, fmt.Errorf("runs: trial %03d: not recorded", index)
}

// QueryResults returns the per-query results of trial index, as recorded
// or, for a replayed trial, derived by the run's Deriver.
func (r *Run) QueryResults(index int) ([]QueryResult, error) { return r.queryResults(index, true) }

// QueryScores is QueryResults without the top hits and labels of a
// replayed trial's results, which cost most of their derivation: what the
// statistics read.
func (r *Run) QueryScores(index int) ([]QueryResult, error) { return r.queryResults(index, false) }

func (r *Run) queryResults(index int, hits bool) ([]QueryResult, error) {
	// Kept results are those of a trial that stores its own (never a
	// derived one): no Deriver to ask.
	memo := r.memo()
	if res, ok := memo.recall(index); ok {
		return res, nil
	}
	if r.Derive != nil {
		if res, ok, err := r.Derive.Derive(r, index, hits); ok || err != nil {
			return res, err
		}
	}
	path := filepath.Join(r.Dir, TrialsDir, fmt.Sprintf("%03d.queries.jsonl", index))
	var out []QueryResult
	size := 0
	err := readLines(path, func(line int, data []byte) error {
		var q QueryResult
		if err := json.Unmarshal(data, &q); err != nil {
			return fmt.Errorf("runs: %s:%d: %w", path, line, err)
		}
		out = append(out, q)
		size += len(data) + 1
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		if t, terr := r.Trial(index); terr == nil && t.Replay != nil {
			return nil, fmt.Errorf("runs: trial %q (%03d): its per-query results are derived from collection %s, and the run has no Deriver", t.Name, index, t.Replay.Collection)
		}
	}
	if err == nil {
		memo.remember(index, append([]QueryResult(nil), out...), size)
	}
	return out, err
}

// ReadFile reads name inside the run directory.
func (r *Run) ReadFile(name string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(r.Dir, name))
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	return data, nil
}

// readLines calls fn with each line of the file at path (1-based numbers).
func readLines(path string, fn func(line int, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	// Small to start (the buffer grows to the longest line, up to 64 MB):
	// the trial records are read back from a dozen files at a time, and
	// a 1 MB buffer each cost more to allocate than to read them.
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if err := fn(line, sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("runs: %s: %w", path, err)
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, rename, fsync the directory. A crash leaves
// either the old file or the new one, never a mix.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(path, data, perm)
}

// WriteLeaderboard writes leaderboard.json, leaderboard.md and
// leaderboard.csv: all three rendered first (a render error writes none),
// then written side by side (each atomically and durably; their fsyncs
// overlap instead of following one another).
func (r *Run) WriteLeaderboard(lb Leaderboard) error {
	f, err := r.RenderLeaderboard(lb)
	if err != nil {
		return err
	}
	return f.Write()
}

// LeaderboardFiles are a leaderboard's files rendered for a run, to be
// written (Write): what WriteLeaderboard writes, split so that its caller
// can go on (a report of the leaderboard, say) while they are written.
type LeaderboardFiles struct {
	r     *Run
	lb    Leaderboard
	names []string
	data  [][]byte
}

// RenderLeaderboard renders lb's files for r (leaderboard.json, .md and
// .csv).
func (r *Run) RenderLeaderboard(lb Leaderboard) (*LeaderboardFiles, error) {
	files := []struct{ name, format string }{
		{LeaderboardJSONFile, "json"}, {LeaderboardMDFile, "md"}, {LeaderboardCSVFile, "csv"},
	}
	f := &LeaderboardFiles{r: r, lb: lb}
	for _, file := range files {
		var b strings.Builder
		if err := lb.Render(&b, file.format); err != nil {
			return nil, fmt.Errorf("runs: render %s: %w", file.name, err)
		}
		f.names = append(f.names, file.name)
		f.data = append(f.data, []byte(b.String()))
	}
	return f, nil
}

// AsWritten returns the leaderboard as leaderboard.json holds it, for
// what is made of it while the files are written (the report): the
// leaderboard rendered when the run's redactor leaves its JSON as it is
// (sharing its slices and maps: not to be changed), else decoded from the
// redacted JSON, as ReadLeaderboard will.
func (f *LeaderboardFiles) AsWritten() (Leaderboard, error) {
	data := f.r.Redact.Bytes(f.data[0])
	if bytes.Equal(data, f.data[0]) {
		return f.lb, nil
	}
	var lb Leaderboard
	if err := json.Unmarshal(data, &lb); err != nil {
		return lb, fmt.Errorf("runs: %s: %w", LeaderboardJSONFile, err)
	}
	return lb, nil
}

// Write writes the files into the run, atomically and durably, side by
// side.
func (f *LeaderboardFiles) Write() error {
	errs := make([]error, len(f.names))
	var wg sync.WaitGroup
	for i, name := range f.names {
		wg.Go(func() { errs[i] = f.r.WriteFile(name, f.data[i]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ReadLeaderboard reads leaderboard.json.
func (r *Run) ReadLeaderboard() (Leaderboard, error) {
	var lb Leaderboard
	data, err := os.ReadFile(filepath.Join(r.Dir, LeaderboardJSONFile))
	if err != nil {
		return lb, fmt.Errorf("runs: %w", err)
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		return lb, fmt.Errorf("runs: %s: %w", filepath.Join(r.Dir, LeaderboardJSONFile), err)
	}
	return lb, nil
}

// RemoveTemp deletes the temporary files an interrupted write left in the
// run (".NAME.tmp-*" of an atomic write, ".NAME.batch" of a TrialBatch;
// never a finished record) and returns how many it removed. A resumed run
// calls it before recording anything.
func (r *Run) RemoveTemp() (int, error) {
	n := 0
	for _, pattern := range []string{".*.tmp-*", filepath.Join(TrialsDir, ".*.tmp-*"), filepath.Join(TrialsDir, ".*.batch")} {
		m, err := filepath.Glob(filepath.Join(r.Dir, pattern))
		if err != nil {
			return n, err
		}
		for _, p := range m {
			if err := os.Remove(p); err != nil {
				return n, fmt.Errorf("runs: remove temporary file: %w", err)
			}
			n++
		}
	}
	return n, nil
}
