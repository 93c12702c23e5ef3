package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// QualityFile is where `tune check-quality` writes its Quality into the
// run directory; BaselineFile, the run's exportable baseline.
const (
	QualityFile  = "quality.json"
	BaselineFile = "baseline.json"
)

// Quality is one evaluation of a backend as it runs (`tune
// check-quality`): the scorecard overall, per category and per
// difficulty, routing accuracy, the gates, the comparison with a reference
// and the failing queries.
type Quality struct {
	Run        string `json:"run"`
	Trial      string `json:"trial"`
	Backend    string `json:"backend"`
	GoldenHash string `json:"golden_hash"`
	// Filter names the queries evaluated when a filter chose them
	// ("category=faq, language=hi"): the scores are of that subset.
	Filter string `json:"filter,omitempty"`
	Summary
	Primary float64 `json:"primary"`
	// Segments is the scorecard split by a query attribute (--by).
	Segments *Segments `json:"segments,omitempty"`
	// Metrics are the scorecard's metrics in display order.
	Metrics []string `json:"metrics"`
	// RoutingByCategory is the routing accuracy per category (only the
	// categories with an expected routing).
	RoutingByCategory map[string]float64 `json:"routing_by_category,omitempty"`
	Gates             []GateCheck        `json:"gates,omitempty"`
	// GatesPass is false when a gate failed.
	GatesPass bool      `json:"gates_pass"`
	Against   *Against  `json:"against,omitempty"`
	Failures  []Failure `json:"failures,omitempty"`
	// FailureCount is every failing query; Failures lists at most the
	// first few.
	FailureCount int `json:"failure_count"`
}

// Against is a run measured against a reference (deltas are run minus
// reference), on the queries both scored.
type Against struct {
	// Reference names the reference: a run id and trial, or a baseline
	// file's path.
	Reference string `json:"reference"`
	// GoldenHashDiffers warns that the reference was made on another
	// version of the golden set.
	GoldenHashDiffers bool `json:"golden_hash_differs,omitempty"`
	// Metrics are the paired comparisons, primary first.
	Metrics []MetricDelta `json:"metrics"`
	// Categories are the per-category deltas of the primary score.
	Categories []CategoryDelta `json:"categories,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
}

// MetricDelta is one metric on both sides with its paired comparison and
// verdict.
type MetricDelta struct {
	Metric    string     `json:"metric"`
	Reference float64    `json:"reference"`
	Current   float64    `json:"current"`
	Paired    Comparison `json:"paired"`
	// Verdict is "better", "worse" (significant under the decision rule)
	// or "same" (not significant).
	Verdict string `json:"verdict"`
}

// ComparisonVerdict is a comparison's verdict: better or worse when significant,
// same otherwise.
func ComparisonVerdict(c Comparison) string {
	switch {
	case c.Significant && c.Delta > 0:
		return "better"
	case c.Significant && c.Delta < 0:
		return "worse"
	}
	return "same"
}

// Failure is a query the check counts as failed: none of its most
// relevant expected passages in the top 3, or a wrong routing.
type Failure struct {
	QueryID  string   `json:"query_id"`
	Query    string   `json:"query"`
	Category string   `json:"category,omitempty"`
	Reasons  []string `json:"reasons"`
	// Expected are the judgments of the query's highest grade, as the
	// golden set states them (a document id, a passage or a pattern).
	Expected []ExpectedPassage `json:"expected,omitempty"`
	// BestRank is the best rank (1-based, within the recorded top) of a
	// result of that grade; 0 when none appeared.
	BestRank int `json:"best_rank"`
	// Top are the first 3 results with their text.
	Top             []RankedDoc `json:"top"`
	Routing         string      `json:"routing,omitempty"`
	ExpectedRouting string      `json:"expected_routing,omitempty"`
}

// ExpectedPassage is one judgment of a failing query.
type ExpectedPassage struct {
	DocID   string `json:"doc_id,omitempty"`
	Passage string `json:"passage,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	Grade   int    `json:"grade"`
}

// Baseline is a small file to commit beside a golden set: a run's
// scorecard and per-query scores, the reference of later checks (`tune
// check-quality --against FILE`).
type Baseline struct {
	// Version is BaselineVersion.
	Version    int     `json:"fusiontune_baseline"`
	Run        string  `json:"run"`
	Trial      string  `json:"trial"`
	GoldenHash string  `json:"golden_hash"`
	Primary    float64 `json:"primary"`
	Summary
	Queries []BaselineQuery `json:"per_query"`
}

// BaselineVersion is the baseline file format's version.
const BaselineVersion = 1

// BaselineQuery is one query's scores in a baseline.
type BaselineQuery struct {
	ID       string             `json:"id"`
	Category string             `json:"category,omitempty"`
	Primary  float64            `json:"primary"`
	Scores   map[string]float64 `json:"scores"`
	Routing  string             `json:"routing,omitempty"`
	Expected string             `json:"expected_routing,omitempty"`
}

// NewBaseline makes the baseline of entry e of run from its recorded
// query results (unjudged and failed queries left out).
func NewBaseline(run string, e Entry, goldenHash string, results []QueryResult) Baseline {
	b := Baseline{Version: BaselineVersion, Run: run, Trial: e.Name, GoldenHash: goldenHash, Primary: e.Primary, Summary: e.Summary}
	for _, r := range results {
		if r.Unjudged || r.Error != "" {
			continue
		}
		b.Queries = append(b.Queries, BaselineQuery{ID: r.QueryID, Category: r.Category, Primary: Round(r.Primary), Scores: roundAll(r.Scores),
			Routing: r.Routing, Expected: r.Expected})
	}
	sort.Slice(b.Queries, func(i, j int) bool { return b.Queries[i].ID < b.Queries[j].ID })
	return b
}

func roundAll(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = Round(v)
	}
	return out
}

// Results returns the baseline's queries as query results, for the paired
// tests.
func (b Baseline) Results() []QueryResult {
	out := make([]QueryResult, len(b.Queries))
	for i, q := range b.Queries {
		out[i] = QueryResult{QueryID: q.ID, Category: q.Category, Primary: q.Primary, Scores: q.Scores, Routing: q.Routing, Expected: q.Expected}
	}
	return out
}

// Value is the baseline's value of metric (primary, routing or a
// scorecard metric), overall or in category.
func (b Baseline) Value(metric, category string) (float64, bool) {
	if category == "" {
		switch metric {
		case "primary":
			return b.Primary, true
		case "routing":
			if b.Routing == nil {
				return 0, false
			}
			return *b.Routing, true
		}
		v, ok := b.Scorecard[metric]
		return v, ok
	}
	if metric == "routing" {
		n, hit := 0, 0
		for _, q := range b.Queries {
			if q.Category == category && q.Expected != "" {
				n++
				if q.Routing == q.Expected {
					hit++
				}
			}
		}
		return float64(hit) / float64(max(n, 1)), n > 0
	}
	v, ok := b.Categories[category][metric]
	return v, ok
}

// Encode writes b as indented JSON (keys sorted, so equal baselines are
// equal bytes).
func (b Baseline) Encode() ([]byte, error) { return MarshalJSON(b) }

// ReadBaseline reads a baseline file, refusing unknown fields and other
// versions.
func ReadBaseline(path string) (Baseline, error) {
	var b Baseline
	data, err := os.ReadFile(path)
	if err != nil {
		return b, fmt.Errorf("baseline: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("baseline %s: %w", path, jsonPos(data, err))
	}
	if b.Version != BaselineVersion {
		return b, fmt.Errorf("baseline %s: fusiontune_baseline: want %d (got %d): not a baseline file written by tune check-quality --export-baseline", path, BaselineVersion, b.Version)
	}
	if len(b.Queries) == 0 {
		return b, fmt.Errorf("baseline %s: per_query: no query scores", path)
	}
	return b, nil
}

// jsonPos turns a decoding error's offset into line:column.
func jsonPos(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%d:%d: %w", line, col, err)
}

// joinReasons is a failure's reasons on one line.
func joinReasons(r []string) string { return strings.Join(r, "; ") }
