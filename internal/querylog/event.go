package querylog

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
)

// Event types.
const (
	TypeSearch   = "search"
	TypeFeedback = "feedback"
	// TypeShadow is a shadow configuration's answer to a logged search
	// (tune serve's live shadow mode): its results, latency, config hash
	// and its diff against what was served.
	TypeShadow = "shadow"
)

// Feedback actions.
const (
	ActionClick    = "click"
	ActionResearch = "research"
)

// Limits of a log line's fields, checked by Read.
const (
	// MaxLineBytes is the longest line Read accepts.
	MaxLineBytes = 1 << 20
	// MaxIDBytes is the longest request or document id.
	MaxIDBytes = 512
	// MaxQueryBytes is the longest query text.
	MaxQueryBytes = 8192
)

// Result is one hit of a logged search, best first.
type Result struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	// Ranks is the hit's 1-based rank in each retriever's list, by
	// retriever name; a retriever that did not return it is absent.
	Ranks map[string]int `json:"ranks,omitempty"`
}

// Event is one line of a query log: a search or a feedback event.
type Event struct {
	Type      string    `json:"type"`
	Time      time.Time `json:"time"`
	RequestID string    `json:"request_id"`

	// Search fields.
	Query     string   `json:"query,omitempty"`
	Category  string   `json:"category,omitempty"`
	K         int      `json:"k,omitempty"`
	Results   []Result `json:"results,omitempty"`
	LatencyMS float64  `json:"latency_ms,omitempty"`
	Config    string   `json:"config,omitempty"`

	// Shadow field: the shadow answer against the served one.
	Diff *Diff `json:"diff,omitempty"`

	// Feedback fields.
	Action   string `json:"action,omitempty"`
	DocID    string `json:"doc_id,omitempty"`
	Position int    `json:"position,omitempty"`

	// Pos is where the event was read: file:line ("" when built in memory).
	Pos string `json:"-"`
}

// Diff compares a shadow answer with the served one, over the served k.
type Diff struct {
	Class       string   `json:"class"`       // identical, minor (order) or major (set)
	KendallTau  *float64 `json:"kendall_tau"` // null when undefined (fewer than two results)
	Jaccard     float64  `json:"jaccard"`
	Top1Changed bool     `json:"top1_changed"`
}

// Check returns the event's first problem as "field: what was expected",
// or "" when the event is well formed on its own (whether a feedback
// event's search exists is checked by Read, across files).
func (e *Event) Check() string {
	if e.Time.IsZero() {
		return "time: required (RFC 3339, e.g. 2026-11-24T07:00:00Z)"
	}
	if p := checkID("request_id", e.RequestID); p != "" {
		return p
	}
	switch e.Type {
	case TypeSearch:
		return e.checkSearch()
	case TypeFeedback:
		return e.checkFeedback()
	case TypeShadow:
		return e.checkShadow()
	case "":
		return `type: required ("search", "feedback" or "shadow")`
	}
	return fmt.Sprintf(`type: want "search", "feedback" or "shadow" (got %q)`, e.Type)
}

func (e *Event) checkSearch() string {
	switch {
	case strings.TrimSpace(e.Query) == "":
		return "query: required, not blank"
	case len(e.Query) > MaxQueryBytes:
		return fmt.Sprintf("query: longer than %d bytes", MaxQueryBytes)
	case e.K < 0:
		return fmt.Sprintf("k: want an integer >= 0 (got %d)", e.K)
	case e.LatencyMS < 0 || math.IsInf(e.LatencyMS, 0) || math.IsNaN(e.LatencyMS):
		return fmt.Sprintf("latency_ms: want a number >= 0 (got %v)", e.LatencyMS)
	case e.Action != "" || e.DocID != "" || e.Position != 0:
		return "action, doc_id, position: belong to feedback events, not a search"
	case e.Diff != nil:
		return "diff: belongs to shadow events, not a search"
	}
	return e.checkResults()
}

// checkShadow checks a shadow event: results and latency, nothing of a
// search's query or a feedback's action.
func (e *Event) checkShadow() string {
	switch {
	case e.Query != "":
		return "query: a shadow event names its search by request_id only"
	case e.Action != "" || e.DocID != "" || e.Position != 0:
		return "action, doc_id, position: belong to feedback events, not a shadow answer"
	case e.LatencyMS < 0 || math.IsInf(e.LatencyMS, 0) || math.IsNaN(e.LatencyMS):
		return fmt.Sprintf("latency_ms: want a number >= 0 (got %v)", e.LatencyMS)
	case e.Diff == nil:
		return "diff: required in a shadow event"
	}
	switch e.Diff.Class {
	case "identical", "minor", "major":
	default:
		return fmt.Sprintf(`diff.class: want identical, minor or major (got %q)`, e.Diff.Class)
	}
	return e.checkResults()
}

// checkResults checks the result ids (present, unique, clean) and ranks.
func (e *Event) checkResults() string {
	seen := make(map[string]bool, len(e.Results))
	for i, r := range e.Results {
		field := fmt.Sprintf("results[%d]", i)
		if p := checkID(field+".id", r.ID); p != "" {
			return p
		}
		if seen[r.ID] {
			return fmt.Sprintf("%s.id: %q listed twice", field, r.ID)
		}
		seen[r.ID] = true
		for name, rank := range r.Ranks {
			if rank < 1 {
				return fmt.Sprintf("%s.ranks.%s: want a rank >= 1 (got %d)", field, name, rank)
			}
		}
	}
	return ""
}

func (e *Event) checkFeedback() string {
	switch e.Action {
	case ActionClick:
		if p := checkID("doc_id", e.DocID); p != "" {
			return p
		}
	case ActionResearch:
	case "":
		return `action: required ("click" or "research")`
	default:
		return fmt.Sprintf(`action: want "click" or "research" (got %q)`, e.Action)
	}
	switch {
	case e.Position < 0:
		return fmt.Sprintf("position: want a 1-based rank (got %d)", e.Position)
	case e.Query != "" || len(e.Results) > 0 || e.Diff != nil:
		return "query, results, diff: belong to search and shadow events, not feedback"
	}
	return ""
}

// checkID checks an identifier: present, bounded, without control
// characters or surrounding white space.
func checkID(field, id string) string {
	switch {
	case id == "":
		return field + ": required"
	case len(id) > MaxIDBytes:
		return fmt.Sprintf("%s: longer than %d bytes", field, MaxIDBytes)
	case strings.TrimSpace(id) != id:
		return fmt.Sprintf("%s: %q has surrounding white space", field, id)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return fmt.Sprintf("%s: %q contains a control character", field, id)
	}
	return ""
}
