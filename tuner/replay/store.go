package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// A replayed trial stores its record only (runs.EncodeTrial); its
// per-query results — every metric, the top hits, the labels — are what
// fusing its collection under its settings gives, so they are derived
// again on demand instead of written once per trial: a 10,000-config
// replay on a 300-query set would otherwise write 10,000 files of about
// 500 kB. The collection is stored once per replay group, self-contained
// (the queries with their judgments, the candidate lists as the backend
// returned them, the scorer and k), as trials/collect-NNN.jsonl: a header
// line, then one line per query.

// collectionHeader is the first line of a collection file.
type collectionHeader struct {
	Params  experiments.Params `json:"params"` // the configuration collected on
	Depth   int                `json:"depth"`  // candidates collected per retriever
	K       int                `json:"k"`      // hits per query, as requested live
	Scorer  scoring.ScorerSpec `json:"scorer"`
	Queries int                `json:"queries"`
}

// Line is one query of a collection file.
type Line struct {
	ID              string                        `json:"id"`
	Text            string                        `json:"text,omitempty"`
	Category        string                        `json:"category,omitempty"`
	Difficulty      string                        `json:"difficulty,omitempty"`
	ExpectedRouting string                        `json:"expected_routing,omitempty"`
	Judgments       map[string]int                `json:"judgments,omitempty"`
	RequestID       string                        `json:"request_id,omitempty"`
	Error           string                        `json:"error,omitempty"`
	Rerank          map[string]float64            `json:"rerank,omitempty"` // before the candidates, which encodeCollectionLine writes last
	Candidates      map[string][]fusion.Candidate `json:"candidates,omitempty"`
}

// Store names col's file, a new trials/collect-NNN.jsonl (NNN:
// the group's first trial; a resumed run that collects the group again
// gets a fresh name, -2, -3, …, so trials recorded before keep theirs),
// and makes col.write start writing it in the background, once, and
// col.stored wait for it (starting it if nothing did): durable once
// col.stored returns nil. col.file is its name. raw holds each query's
// candidate lists. The caller waits for col.stored before it stores
// another collection.
func Store(run *runs.Run, first int, col *Collection, spec scoring.ScorerSpec, raw []map[string][]fusion.Candidate) error {
	name := fmt.Sprintf("collect-%03d.jsonl", first)
	for n := 2; ; n++ {
		_, err := os.Stat(filepath.Join(run.Dir, runs.TrialsDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return fmt.Errorf("replay: store the collection: %w", err)
		}
		name = fmt.Sprintf("collect-%03d-%d.jsonl", first, n)
	}
	done := make(chan error, 1)
	col.write = sync.OnceFunc(func() { go func() { done <- writeCollection(run, name, col, spec, raw) }() })
	col.File, col.Stored = name, sync.OnceValue(func() error { col.write(); return <-done })
	return nil
}

// writeCollection encodes col and writes it durably as trials/name.
func writeCollection(run *runs.Run, name string, col *Collection, spec scoring.ScorerSpec, raw []map[string][]fusion.Candidate) error {
	var buf bytes.Buffer
	// Sized once, not grown by doubling through it (a doubling copies
	// what is written so far and touches twice the memory).
	buf.Grow(collectionSize(col, raw))
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(collectionHeader{Params: col.Params, Depth: col.Depth, K: col.K, Scorer: spec, Queries: len(col.Queries)})
	for i := range col.Queries {
		if err != nil {
			break
		}
		c := &col.Queries[i]
		q := c.Q
		err = encodeCollectionLine(enc, &buf, Line{ID: q.ID, Text: q.Text, Category: q.Category, Difficulty: q.Difficulty,
			ExpectedRouting: q.ExpectedRouting, Judgments: q.Judgments, RequestID: c.RequestID, Error: c.Err, Rerank: c.Rerank, Candidates: raw[i]})
	}
	if err != nil {
		return fmt.Errorf("replay: encode the collection: %w", err)
	}
	if err := run.WriteFile(filepath.Join(runs.TrialsDir, name), buf.Bytes()); err != nil {
		return fmt.Errorf("replay: store the collection: %w", err)
	}
	return nil
}

// collectionSize is about how many bytes col's file takes, with raw its
// queries' candidate lists, erring above: each candidate its two ids and
// 66 bytes (its keys, punctuation, the longest score and a four-digit
// rank), each query its text twice over (escapes), 64 bytes a judgment
// and 512 for the rest of its line.
func collectionSize(col *Collection, raw []map[string][]fusion.Candidate) int {
	n := 1024 // the header
	for i, lists := range raw {
		q := col.Queries[i].Q
		n += 512 + 2*len(q.Text) + 64*len(q.Judgments)
		for id := range col.Queries[i].Rerank {
			n += 32 + 2*len(id)
		}
		for name, l := range lists {
			n += 8 + len(name)
			for _, c := range l {
				n += 66 + len(c.ID) + len(c.DocID)
			}
		}
	}
	return n
}

// encodeCollectionLine appends l to buf as enc (writing to buf, HTML not
// escaped) encodes it, byte for byte, its candidate lists — most of the
// collection, and most of the time encoding/json spends on it — written
// without reflection when their ids are plain (printable ASCII, nothing
// to escape) and their scores finite; otherwise by enc.
func encodeCollectionLine(enc *json.Encoder, buf *bytes.Buffer, l Line) error {
	cands := l.Candidates
	if len(cands) == 0 || !plainCandidates(cands) {
		return enc.Encode(l)
	}
	l.Candidates = nil
	if err := enc.Encode(l); err != nil {
		return err
	}
	// The candidates are the last member: reopen the object for them.
	buf.Truncate(buf.Len() - len("}\n"))
	b := buf.AvailableBuffer()
	b = append(b, `,"candidates":{`...)
	for k, name := range slices.Sorted(maps.Keys(cands)) { // encoding/json sorts map keys
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		list := cands[name]
		if list == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		for j, c := range list {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":"`...)
			b = append(b, c.ID...)
			b = append(b, `","doc_id":"`...)
			b = append(b, c.DocID...)
			b = append(b, `","score":`...)
			b = appendJSONFloat(b, c.Score)
			b = append(b, `,"rank":`...)
			b = strconv.AppendInt(b, int64(c.Rank), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, "}}\n"...)
	buf.Write(b)
	return nil
}

// plainCandidates reports whether every retriever name and id of cands
// is plain (see plainJSONString) and every score finite.
func plainCandidates(cands map[string][]fusion.Candidate) bool {
	for name, list := range cands {
		if !plainJSONString(name) {
			return false
		}
		for _, c := range list {
			if !plainJSONString(c.ID) || !plainJSONString(c.DocID) || math.IsInf(c.Score, 0) || math.IsNaN(c.Score) {
				return false
			}
		}
	}
	return true
}

// plainJSONString reports whether s is printable ASCII with no quote or
// backslash: encoding/json writes it as it is, between quotes.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendJSONFloat appends finite f as encoding/json writes a float64:
// the shortest representation, in exponent form below 1e-6 or from 1e21
// on (with a one-digit negative exponent unpadded).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Load reads trials/NAME of run back into a collection ready
// for replay.
func Load(run *runs.Run, name string) (*Collection, error) {
	col, _, err := LoadLists(run, name, false)
	return col, err
}

// LoadLists is Load that, with raw, also returns each
// query's candidate lists as collected (in retrieval order), in the same
// single read of the file.
func LoadLists(run *runs.Run, name string, raw bool) (*Collection, []map[string][]fusion.Candidate, error) {
	var col *Collection
	var rp *Replayer
	var lists []map[string][]fusion.Candidate
	h, path, err := Read(run, name, "replay", func(h collectionHeader, path string) error {
		sc, err := scoring.NewScorerFromSpec(h.Scorer)
		if err != nil {
			return fmt.Errorf("replay: %s:1: scorer: %w", path, err)
		}
		col = &Collection{Params: h.Params, Depth: h.Depth, K: h.K, Scorer: sc, File: name, Queries: make([]Collected, 0, h.Queries)}
		rp = NewReplayer(sc, 0)
		return nil
	}, func(l Line) error {
		q := scoring.Query{ID: l.ID, Text: l.Text, Category: l.Category, Difficulty: l.Difficulty, ExpectedRouting: l.ExpectedRouting, Judgments: l.Judgments}
		var pl *fusion.Prepared
		if l.Candidates != nil {
			pl = fusion.Prepare(l.Candidates)
		}
		rq := rp.Prepare(q, pl)
		rq.Rerank = l.Rerank
		col.Queries = append(col.Queries, Collected{Query: rq, Err: l.Error, RequestID: l.RequestID})
		col.Golden = append(col.Golden, q)
		if raw {
			lists = append(lists, l.Candidates)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(col.Queries) != h.Queries {
		return nil, nil, fmt.Errorf("replay: %s: %d queries, the header says %d (truncated file?)", path, len(col.Queries), h.Queries)
	}
	return col, lists, nil
}

// Read decodes trials/NAME of run: its header (passed to
// header) and each query line (passed to each), errors naming the file
// and line after what ("replay: PATH:LINE: ..."). It returns the header
// and the file's path.
func Read(run *runs.Run, name, what string, header func(collectionHeader, string) error, each func(Line) error) (collectionHeader, string, error) {
	var h collectionHeader
	data, err := run.ReadFile(filepath.Join(runs.TrialsDir, name))
	if err != nil {
		return h, "", err
	}
	path := filepath.Join(run.Dir, runs.TrialsDir, name)
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&h); err != nil {
		return h, path, fmt.Errorf("%s: %s:1: %w", what, path, err)
	}
	if header != nil {
		if err := header(h, path); err != nil {
			return h, path, err
		}
	}
	for line := 2; dec.More(); line++ {
		var l Line
		if err := dec.Decode(&l); err != nil {
			return h, path, fmt.Errorf("%s: %s:%d: %w", what, path, line, err)
		}
		if err := each(l); err != nil {
			return h, path, err
		}
	}
	return h, path, nil
}

// Deriver derives the per-query results of replayed trials by fusing
// their collection again under their settings — the same code and the same
// inputs as the replay, so the same results. It is the runs.Deriver the
// tuner gives every run it writes or reads (runs.Store.Derive), so that
// run.QueryResults answers every trial. Collections are read once per run.
// It is safe for concurrent use.
type Deriver struct {
	mu   sync.Mutex
	runs map[string]*Results // by run directory
}

var _ runs.Deriver = (*Deriver)(nil)

// NewDeriver returns a Deriver with nothing read yet.
func NewDeriver() *Deriver { return &Deriver{runs: map[string]*Results{}} }

// Derive implements runs.Deriver.
func (d *Deriver) Derive(run *runs.Run, index int, hits bool) ([]runs.QueryResult, bool, error) {
	return d.of(run).derived(index, hits)
}

// of returns the results of run, made on first use.
func (d *Deriver) of(run *runs.Run) *Results {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.runs[run.Dir]
	if r == nil {
		r = &Results{run: run, cols: map[string]*collectionOnce{}}
		d.runs[run.Dir] = r
	}
	return r
}

// EnsureDeriver gives run a Deriver when it has none, so that its
// QueryResults answers replayed trials too.
func EnsureDeriver(run *runs.Run) { Of(run) }

// Of returns the derived results of run through its Deriver,
// giving the run a new one when it has none (or another kind), so that a
// sweep can hand it the collections it holds in memory.
func Of(run *runs.Run) *Results {
	d, ok := run.Derive.(*Deriver)
	if !ok {
		d = NewDeriver()
		run.Derive = d
	}
	return d.of(run)
}

// Results are one run's derived results: its trial records (read once)
// and collections.
type Results struct {
	run *runs.Run

	mu     sync.Mutex
	trials map[int]runs.TrialRecord // every recorded trial, read once
	cols   map[string]*collectionOnce
}

type collectionOnce struct {
	once sync.Once
	col  *Collection
	err  error
}

// Keep makes the stored collection col known without reading its file
// back: the sweep that wrote it hands it over.
func (r *Results) Keep(col *Collection) {
	c := &collectionOnce{col: col}
	c.once.Do(func() {})
	r.mu.Lock()
	r.cols[col.File] = c
	r.mu.Unlock()
}

// Drop forgets the collection stored as file: a study dropping it from
// memory; it is read back from its file if asked for again.
func (r *Results) Drop(file string) {
	r.mu.Lock()
	delete(r.cols, file)
	r.mu.Unlock()
}

// derived returns the results of trial index and ok when it is a replayed
// trial, derived from its collection; ok is false for a trial that stores
// its own.
func (r *Results) derived(index int, hits bool) ([]runs.QueryResult, bool, error) {
	t, ok, err := r.trial(index, false)
	if err == nil && !ok {
		// Recorded after the trials were read: read them again.
		t, ok, err = r.trial(index, true)
	}
	if err != nil || !ok || t.Replay == nil {
		return nil, false, err
	}
	res, err := r.derive(t, hits)
	return res, true, err
}

// trial returns the record of trial index as the run's trials were read
// (once, or again with reload) and whether there is one.
func (r *Results) trial(index int, reload bool) (runs.TrialRecord, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.trials == nil || reload {
		all, err := r.run.Trials()
		if err != nil {
			return runs.TrialRecord{}, false, err
		}
		r.trials = make(map[int]runs.TrialRecord, len(all))
		for _, t := range all {
			r.trials[t.Index] = t
		}
	}
	t, ok := r.trials[index]
	return t, ok, nil
}

// Rerecorded tells r that trial t was recorded again (a replayed trial
// verified live, whose per-query file is now the record).
func (r *Results) Rerecorded(t runs.TrialRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.trials != nil {
		r.trials[t.Index] = t
	}
}

// derive fuses the collection of replayed trial t under its settings.
func (r *Results) derive(t runs.TrialRecord, hits bool) ([]runs.QueryResult, error) {
	col, s, err := r.collectionOf(t)
	if err != nil {
		return nil, err
	}
	derivations.Add(1)
	return col.Results(s, hits, t.OnQueryError), nil
}

// Facts derives what the statistics need of replayed trial t in one
// fusion of its collection (collection.Facts): its per-query scores, its
// result key and its judged-only values for the judgedOnly metrics under
// judgments and sc.
func (r *Results) Facts(t runs.TrialRecord, judgments scoring.Judgments, sc scoring.Scorer, judgedOnly []string) (Facts, error) {
	col, s, err := r.collectionOf(t)
	if err != nil {
		return Facts{}, err
	}
	derivations.Add(1)
	factsDerived.Add(1)
	return col.facts(s, t.OnQueryError, judgments, sc, judgedOnly), nil
}

// derivations counts the replayed trials' results derived (derive, facts)
// since the process started, for the tests; factsDerived, those of them
// for facts.
var derivations, factsDerived atomic.Int64

// collectionOf returns the collection of replayed trial t, read once, and
// t's settings.
func (r *Results) collectionOf(t runs.TrialRecord) (*Collection, fusion.Settings, error) {
	var s fusion.Settings
	if err := json.Unmarshal(t.Replay.Settings, &s); err != nil {
		return nil, s, fmt.Errorf("replay: trial %q: settings: %w", t.Name, err)
	}
	r.mu.Lock()
	c := r.cols[t.Replay.Collection]
	if c == nil {
		c = &collectionOnce{}
		r.cols[t.Replay.Collection] = c
	}
	r.mu.Unlock()
	c.once.Do(func() { c.col, c.err = Load(r.run, t.Replay.Collection) })
	if c.err != nil {
		return nil, s, fmt.Errorf("trial %q: %w", t.Name, c.err)
	}
	return c.col, s, nil
}

// Derivations is how many replayed trials' per-query results were
// derived since the process started (tests and benchmarks read it).
func Derivations() int64 { return derivations.Load() }

// FactsDerived is how many replayed trials' statistics facts were derived
// from their collection, not made in their replay, since the process
// started (tests and benchmarks read it).
func FactsDerived() int64 { return factsDerived.Load() }
