package replay

import (
	"reflect"
	"sync"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// Collection is one replay group's candidate lists, per query.
type Collection struct {
	Params   experiments.Params // the configuration the lists were collected on
	Settings fusion.Settings    // its resolved settings
	Depth    int                // candidates collected per retriever
	Queries  []Collected        // in query order
	Golden   []scoring.Query    // each collected's query, for the summarizer
	Scorer   scoring.Scorer     // scores the fused rankings
	K        int                // hits per query, as requested live
	// File is the collection's File under trials/ once stored; "" when it
	// is not (a scorer without a spec): its trials then store their
	// per-query results.
	File string
	// Stored waits until file is durable and returns why it could not
	// be made so (nil when file is ""); write starts writing it in the
	// background (nil when file is ""), which Stored does too.
	Stored func() error
	write  func()

	// jmu guards jof and jrows: the judgments of each query under jof,
	// in query order (judgmentRows).
	jmu   sync.Mutex
	jof   scoring.Judgments
	jrows []map[string]int
}

// judgmentRows returns judgments[q.ID] of each of col's queries q, in
// query order, looked up once for every trial whose facts read them
// under the same judgments.
func (col *Collection) judgmentRows(judgments scoring.Judgments) []map[string]int {
	col.jmu.Lock()
	defer col.jmu.Unlock()
	if col.jrows == nil || reflect.ValueOf(col.jof).UnsafePointer() != reflect.ValueOf(judgments).UnsafePointer() {
		col.jrows = make([]map[string]int, len(col.Queries))
		for i := range col.Queries {
			col.jrows[i] = judgments[col.Queries[i].Q.ID]
		}
		col.jof = judgments
	}
	return col.jrows
}

// StartWrite starts writing col's file, if it has one, in the background.
func (col *Collection) StartWrite() {
	if col.write != nil {
		col.write()
	}
}

// HasRerank reports whether every answered query of col came with the
// reranker's scores of its candidates, which replaying a rerank stage
// needs.
func (col *Collection) HasRerank() bool {
	for i := range col.Queries {
		if c := &col.Queries[i]; c.Err == "" && c.Lists != nil && c.Rerank == nil {
			return false
		}
	}
	return true
}

// Collected is one query's candidate lists, prepared for fusion, or why
// they are missing.
type Collected struct {
	Query
	Err       string
	RequestID string
}

// Results fuses and scores every query under s, as a live run of the
// trial records them; without hits, the top hits and labels are left
// out (the scores are the same).
//
// Failed queries are marked under policy (see scoring.MarkQueryErrors).
func (col *Collection) Results(s fusion.Settings, hits bool, policy string) []runs.QueryResult {
	rp := NewReplayer(col.Scorer, col.K)
	out := make([]runs.QueryResult, len(col.Queries))
	for i := range col.Queries {
		c := &col.Queries[i]
		q := c.Q
		r := runs.QueryResult{QueryID: q.ID, Category: q.Category, Expected: q.ExpectedRouting, RequestID: c.RequestID,
			Unjudged: len(q.Judgments) == 0}
		switch {
		case c.Err != "":
			r.Error = c.Err
			r.Scores = map[string]float64{}
		case hits:
			rp.Record(&r, &c.Query, s)
		default:
			vals, primary := rp.Score(&c.Query, s)
			r.Primary, r.Routing = primary, rp.Routing()
			r.Scores = make(map[string]float64, len(vals))
			for j, name := range rp.Names {
				r.Scores[name] = vals[j]
			}
		}
		out[i] = r
	}
	scoring.MarkQueryErrors(out, policy)
	return out
}

// Collector prepares each query's candidate lists for fusion into a
// collection as its answer arrives (a batch streams them in while the
// backend searches the rest), and keeps them as answered for the
// collection's file.
type Collector struct {
	col      *Collection
	Replayer *Replayer
	pos      map[string]int // query id -> position

	mu      sync.Mutex
	Raw     []map[string][]fusion.Candidate // by position
	Missing int                             // answers without candidate lists
}

// NewCollector returns the collector of col, whose queries are qs in
// order, scored with sc.
func NewCollector(col *Collection, qs []scoring.Query, sc scoring.Scorer) *Collector {
	cr := &Collector{col: col, Replayer: NewReplayer(sc, 0), pos: make(map[string]int, len(qs)),
		Raw: make([]map[string][]fusion.Candidate, len(qs))}
	for i, q := range qs {
		cr.pos[q.ID] = i
	}
	return cr
}

// Answered takes q's answer (pass.EvalOptions.OnResponse).
func (cr *Collector) Answered(q scoring.Query, resp backend.SearchResponse) {
	var pl *fusion.Prepared
	if resp.Candidates != nil {
		pl = fusion.Prepare(resp.Candidates)
	}
	rq := cr.Replayer.Prepare(q, pl)
	rq.Rerank = resp.Rerank
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if pl == nil {
		cr.Missing++
	}
	cr.col.Queries[cr.pos[q.ID]].Query = rq
	cr.Raw[cr.pos[q.ID]] = resp.Candidates
}
