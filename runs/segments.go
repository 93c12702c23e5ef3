package runs

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Segments is a scorecard split by a query attribute (language,
// category, difficulty or meta.KEY): a row per segment.
type Segments struct {
	By   string    `json:"by"`
	Rows []Segment `json:"rows"`
}

// Segment is one segment's row: the judged queries scored in it (failed
// ones left out), their mean primary score and metrics, the queries with
// no relevant result in their first LabelDepth, and, against a reference,
// the mean primary delta over the segment's queries both scored.
type Segment struct {
	Segment    string             `json:"segment"`
	Queries    int                `json:"queries"`
	Primary    float64            `json:"primary"`
	Scores     map[string]float64 `json:"scores"`
	NoRelevant int                `json:"queries_no_relevant"`
	Delta      *float64           `json:"delta_vs_reference,omitempty"`
}

// NewSegments splits results by segmentOf (query id → segment) into
// Segments by by, segments in name order. ref, when not nil, is the
// reference's primary score by query id: each segment gets the mean of
// (result − reference) over the queries both scored.
func NewSegments(by string, segmentOf map[string]string, results []QueryResult, ref map[string]float64) *Segments {
	type acc struct {
		n, none, paired int
		primary, delta  float64
		sums            map[string]float64
	}
	accs := map[string]*acc{}
	for _, r := range results {
		if r.Unjudged || r.Error != "" {
			continue
		}
		name := segmentOf[r.QueryID]
		a := accs[name]
		if a == nil {
			a = &acc{sums: map[string]float64{}}
			accs[name] = a
		}
		a.n++
		a.primary += r.Primary
		for m, v := range r.Scores {
			a.sums[m] += v
		}
		t := NewTopLabels()
		t.AddResult(r)
		a.none += t.NoRelevant
		if v, ok := ref[r.QueryID]; ok {
			a.paired++
			a.delta += r.Primary - v
		}
	}
	s := &Segments{By: by, Rows: []Segment{}}
	for _, name := range slices.Sorted(maps.Keys(accs)) {
		a := accs[name]
		row := Segment{Segment: name, Queries: a.n, Primary: round(a.primary / float64(a.n)), Scores: map[string]float64{}, NoRelevant: a.none}
		for m, v := range a.sums {
			row.Scores[m] = round(v / float64(a.n))
		}
		if a.paired > 0 {
			d := round(a.delta / float64(a.paired))
			row.Delta = &d
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// table is s as text rows: segment, queries, primary, the delta (headed
// deltaHead) when any segment has one, the queries with no relevant
// result, and metrics.
func (s *Segments) table(deltaHead string, metrics []string) (head []string, rows [][]string) {
	delta := slices.ContainsFunc(s.Rows, func(r Segment) bool { return r.Delta != nil })
	head = []string{s.By, "queries", "primary"}
	if delta {
		head = append(head, deltaHead)
	}
	head = append(head, "no relevant@"+strconv.Itoa(LabelDepth))
	head = append(head, metrics...)
	for _, r := range s.Rows {
		row := []string{r.Segment, strconv.Itoa(r.Queries), f4(r.Primary)}
		if delta {
			cell := "-"
			if r.Delta != nil {
				cell = FormatDelta(*r.Delta)
			}
			row = append(row, cell)
		}
		row = append(row, strconv.Itoa(r.NoRelevant))
		for _, m := range metrics {
			row = append(row, f4(r.Scores[m]))
		}
		rows = append(rows, row)
	}
	return head, rows
}

// VerboseLine is one query's line for --verbose: its id, its text cut to
// 40 runes, the rank of its first relevant result (grade 1 or above; "-"
// when none in the recorded top) and the grades of its first LabelDepth
// results ("3 0 2 - 1", "-" unjudged). A failed query shows its error.
func VerboseLine(r QueryResult, text string) string {
	if rs := []rune(text); len(rs) > 40 {
		text = string(rs[:39]) + "…"
	}
	if r.Error != "" {
		return r.QueryID + "  " + strconv.Quote(text) + "  failed: " + r.Error
	}
	first := "-"
	for i, d := range r.Top {
		if d.Grade >= 1 {
			first = strconv.Itoa(i + 1)
			break
		}
	}
	labels := make([]string, 0, LabelDepth)
	for i := 0; i < len(r.Top) && i < LabelDepth; i++ {
		if g := r.Top[i].Grade; g >= 0 {
			labels = append(labels, strconv.Itoa(g))
		} else {
			labels = append(labels, "-")
		}
	}
	return r.QueryID + "  " + strconv.Quote(text) + "  first relevant " + first + "  " + strings.Join(labels, " ")
}

// FilterNote is the note on scores of the queries a filter chose
// ("category=faq, language=hi"): they are not the whole golden set's.
func FilterNote(filter string) string {
	return "only the queries with " + filter + ": the scores are of this subset, not the whole golden set"
}
