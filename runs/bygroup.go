package runs

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/table"
)

// Groupings accepted by RenderBy: the query attribute whose per-group
// primary scores become the columns.
var Groupings = []string{"category", "difficulty"}

// ByGroup is the leaderboard pivoted by a query attribute: each trial's
// primary score overall and per group (category or difficulty), one column
// per group.
type ByGroup struct {
	Primary string       `json:"primary"`
	By      string       `json:"by"`
	Groups  []string     `json:"groups"`
	Trials  []GroupEntry `json:"trials"`
}

// GroupEntry is one trial's row of a ByGroup table; Groups holds the
// primary score of each group the trial scored.
type GroupEntry struct {
	Rank    int                `json:"rank"`
	Name    string             `json:"name"`
	Status  string             `json:"status"`
	Primary float64            `json:"primary"`
	Groups  map[string]float64 `json:"groups"`
}

// By pivots the leaderboard by "category" or "difficulty" (see Groupings).
func (lb Leaderboard) By(by string) (ByGroup, error) {
	t := ByGroup{Primary: lb.Primary, By: by, Trials: make([]GroupEntry, 0, len(lb.Trials))}
	seen := map[string]bool{}
	for _, e := range lb.Trials {
		var src map[string]map[string]float64
		switch by {
		case "category":
			src = e.Categories
		case "difficulty":
			src = e.Difficulties
		default:
			return ByGroup{}, fmt.Errorf("runs: unknown grouping %q (want one of %s)", by, strings.Join(Groupings, ", "))
		}
		g := GroupEntry{Rank: e.Rank, Name: e.Name, Status: e.Status, Primary: e.Primary, Groups: map[string]float64{}}
		for name, card := range src {
			if v, ok := card["primary"]; ok {
				g.Groups[name] = v
				seen[name] = true
			}
		}
		t.Trials = append(t.Trials, g)
	}
	t.Groups = slices.Sorted(maps.Keys(seen))
	return t, nil
}

// RenderBy writes the leaderboard pivoted by a query attribute (see By) in
// format: text, json, md or csv.
func (lb Leaderboard) RenderBy(w io.Writer, by, format string) error {
	t, err := lb.By(by)
	if err != nil {
		return err
	}
	return t.Render(w, format, lb.Labels())
}

// Render writes t in format (text, json, md or csv). Text and Markdown
// show each trial under its label (labels, from Leaderboard.Labels), as
// the leaderboard does; CSV and JSON keep the names.
func (t ByGroup) Render(w io.Writer, format string, labels map[string]string) error {
	tb := t.table()
	shown := *tb
	shown.Rows = relabel(tb.Rows, 1, labels)
	return render(w, format, table.All, table.Output{Table: tb, JSON: jsonOf(t),
		Text: func(w io.Writer) error {
			shown.Notes = []string{fmt.Sprintf("primary per %s: %s", t.By, t.Primary)}
			return shown.Render(w, table.Text)
		},
		Markdown: func(w io.Writer) error {
			shown.Title = fmt.Sprintf("Primary score per %s: %s", t.By, t.Primary)
			return shown.Render(w, table.Markdown)
		}})
}

// table is the pivot as a table: rank, trial, status, the primary score
// and a column per group; a score shows with four decimals in text and
// Markdown (in full in CSV), a group the trial did not score as "—"
// (empty in CSV).
func (t ByGroup) table() *table.Table {
	score := func(v any) string { return f4(v.(float64)) }
	cols := []table.Column{{Header: "#", Key: "rank"}, {Header: "trial"}, {Header: "status"}, {Header: "primary", Display: score}}
	for _, g := range t.Groups {
		cols = append(cols, table.Column{Header: g, Display: score})
	}
	tb := &table.Table{Columns: cols, Missing: "—"}
	for _, e := range t.Trials {
		row := []any{e.Rank, e.Name, e.Status, e.Primary}
		for _, g := range t.Groups {
			if v, ok := e.Groups[g]; ok {
				row = append(row, v)
			} else {
				row = append(row, nil)
			}
		}
		tb.Append(row...)
	}
	return tb
}

// relabel is rows with the trial name in column col replaced by its
// label (labels, from Leaderboard.Labels).
func relabel(rows [][]any, col int, labels map[string]string) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		if name, ok := r[col].(string); ok && labels[name] != "" {
			out[i][col] = labels[name]
		}
	}
	return out
}
