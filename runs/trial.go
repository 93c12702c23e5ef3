package runs

import (
	"encoding/json"
	"maps"
	"slices"
)

// Trial statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
	StatusPruned = "pruned"
)

// TrialRecord is one evaluated configuration as stored in trials/NNN.json.
// It holds no timestamps, so repeated runs give identical files.
type TrialRecord struct {
	Index  int            `json:"index"`
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
	// Group identifies the index-time settings the trial shares with others.
	Group  string `json:"group"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Baseline marks the experiment file's baseline trial.
	Baseline bool `json:"baseline,omitempty"`
	// Primary is the primary score (mean over queries).
	Primary float64 `json:"primary"`
	Summary
	// BackendConfig is the exact configuration applied to the backend.
	BackendConfig string `json:"backend_config,omitempty"`
	// Mode says how the trial was evaluated: live, replay, verified, or
	// reused (not run: ReusedFrom's results).
	Mode string `json:"mode"`
	// ReusedFrom names the earlier trial whose results this one reuses:
	// the backend's fingerprint said both build the same index and answer
	// alike (chunk settings that cut the corpus the same way, say).
	ReusedFrom string `json:"reused_from,omitempty"`
	// Sampler names the sampler that proposed the trial (random, tpe,
	// cmaes); empty for the experiment file's own trials.
	Sampler string `json:"sampler,omitempty"`
	// Worker is the shared study's worker replica that ran the trial
	// ("NAME/R"); empty outside shared studies.
	Worker string `json:"worker,omitempty"`
	// Fraction is the share of the queries the trial was evaluated on when
	// pruning was on: below 1 for a pruned trial, whose Primary, Scorecard
	// and Queries are then partial. 0 when pruning was off.
	Fraction float64 `json:"fraction,omitempty"`
	// Rungs are the trial's partial primary scores at the successive-halving
	// rungs it reached.
	Rungs []Rung `json:"rungs,omitempty"`
	// Replay, on a trial fused offline, names the collection of candidate
	// lists it was fused from and the settings it was fused with. A
	// replayed trial stores no per-query file: its per-query results are
	// derived again from the collection on demand (see Deriver).
	Replay *ReplayRef `json:"replay,omitempty"`
	// Replayed, on a replayed trial verified live (whose per-query file is
	// now its record, Replay nil), keeps the collection and settings it was
	// replayed with: `tune adapt` reads every setting of a replay group.
	Replayed *ReplayRef `json:"replayed,omitempty"`
}

// Summary is the scores of a trial over its queries besides the primary
// score, as a trial record and its leaderboard entry both carry them. It
// is embedded in both, so its fields are written in its place.
type Summary struct {
	// Scorecard holds every metric's mean over the scored queries.
	Scorecard map[string]float64 `json:"scorecard"`
	// Categories and Difficulties hold the scorecard (with "primary") per
	// category and per difficulty.
	Categories   map[string]map[string]float64 `json:"categories,omitempty"`
	Difficulties map[string]map[string]float64 `json:"difficulties,omitempty"`
	// Routing is the share of queries with an expected routing whose
	// backend routing matched; nil when no query declares one.
	Routing *float64 `json:"routing_accuracy,omitempty"`
	// Queries is the number of queries scored; Failed the number whose
	// search failed after retries.
	Queries int `json:"queries"`
	Failed  int `json:"failed_queries,omitempty"`
	// OnQueryError is the eval.on_query_error policy ("zero" or "skip")
	// the trial's Failed queries were scored under instead of failing it;
	// "" when none failed or they failed the trial.
	OnQueryError string `json:"on_query_error,omitempty"`
	// TopLabels counts the grades of the queries' first results and the
	// queries with no relevant one among them; nil when not counted.
	TopLabels *TopLabels `json:"top_labels,omitempty"`
}

// Clone returns a copy of t that shares no map, slice or pointer with t
// (Params as JSON decodes them: nested maps and slices are copied too).
func (t TrialRecord) Clone() TrialRecord {
	c := t
	c.Params = cloneJSONMap(t.Params)
	c.Scorecard = maps.Clone(t.Scorecard)
	c.Categories = cloneNested(t.Categories)
	c.Difficulties = cloneNested(t.Difficulties)
	c.TopLabels = t.TopLabels.clone()
	if t.Routing != nil {
		r := *t.Routing
		c.Routing = &r
	}
	c.Rungs = slices.Clone(t.Rungs)
	c.Replay, c.Replayed = t.Replay.clone(), t.Replayed.clone()
	return c
}

func (r *ReplayRef) clone() *ReplayRef {
	if r == nil {
		return nil
	}
	c := *r
	c.Settings = slices.Clone(r.Settings)
	return &c
}

func cloneNested(m map[string]map[string]float64) map[string]map[string]float64 {
	if m == nil {
		return nil
	}
	c := make(map[string]map[string]float64, len(m))
	for k, v := range m {
		c[k] = maps.Clone(v)
	}
	return c
}

func cloneJSONMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = cloneJSON(v)
	}
	return c
}

// cloneJSON copies a value as encoding/json decodes into any: maps and
// slices deeply, other values as they are (strings, numbers, booleans).
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneJSONMap(v)
	case []any:
		if v == nil {
			return v
		}
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

// ReplayRef points a replayed trial at what it was fused from.
type ReplayRef struct {
	// Collection is the file under trials/ holding the candidate lists.
	Collection string `json:"collection"`
	// Settings are the fusion settings the trial was replayed with, as the
	// replay encodes them.
	Settings json.RawMessage `json:"settings"`
}

// Rung is a trial's partial result on a query subset.
type Rung struct {
	Fraction float64 `json:"fraction"`
	Queries  int     `json:"queries"`
	Primary  float64 `json:"primary"`
}

// QueryResult is one query of one trial, a line of trials/NNN.queries.jsonl.
type QueryResult struct {
	QueryID   string             `json:"query_id"`
	Category  string             `json:"category,omitempty"`
	Top       []RankedDoc        `json:"top"`
	Labels    string             `json:"labels"` // e.g. "1:L3 | 2:L1 | 3:L0"
	Scores    map[string]float64 `json:"scores"`
	Primary   float64            `json:"primary"`
	Routing   string             `json:"routing,omitempty"`
	Expected  string             `json:"expected_routing,omitempty"`
	RequestID string             `json:"request_id"`
	LatencyMS float64            `json:"latency_ms"`
	Error     string             `json:"error,omitempty"`

	// Unjudged marks a query without judgments: it is not scored (its
	// scores are zeros) and the statistics leave it out.
	Unjudged bool `json:"unjudged,omitempty"`
	// OnError says what became of a failed query (Error set) under
	// eval.on_query_error: "zero" (scored 0 on every metric, in the means
	// and paired tests) or "skip" (left out of both); "" fails the trial.
	OnError string `json:"on_error,omitempty"`
}

// RankedDoc is one retrieved document with its grade (-1 when unjudged).
type RankedDoc struct {
	DocID string  `json:"doc_id"`
	Score float64 `json:"score"`
	Grade int     `json:"grade"`
	// Text is an excerpt of the document (failure reports fill it from
	// the corpus); trial records leave it empty, so replayed and live
	// records stay equal.
	Text string `json:"text,omitempty"`
}

// Trial modes recorded in TrialRecord.Mode.
const (
	TrialLive     = "live"     // evaluated on the backend
	TrialReplay   = "replay"   // fused offline from collected candidate lists
	TrialVerified = "verified" // replayed, then re-run live with equal per-query scores
	// TrialReused is the mode of a trial whose results are another
	// trial's (TrialRecord.ReusedFrom): its fingerprint said it builds the
	// same index and answers alike.
	TrialReused = "reused"
)
