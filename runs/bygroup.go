package runs

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
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
	switch format {
	case "json":
		data, err := MarshalJSON(t)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "csv":
		return t.renderCSV(w)
	case "text", "table", "":
		tw := tablewriter.NewWriter(w)
		tw.SetHeader(t.header())
		tw.SetAutoFormatHeaders(false)
		tw.SetAutoWrapText(false)
		for _, e := range t.Trials {
			tw.Append(t.row(e, f4))
		}
		tw.Render()
		_, err := fmt.Fprintf(w, "primary per %s: %s\n", by, t.Primary)
		return err
	case "md", "markdown":
		var b strings.Builder
		fmt.Fprintf(&b, "Primary score per %s: %s\n\n", by, t.Primary)
		rows := make([][]string, len(t.Trials))
		for i, e := range t.Trials {
			rows[i] = t.row(e, f4)
		}
		MarkdownTable(&b, t.header(), rows)
		_, err := io.WriteString(w, b.String())
		return err
	}
	return fmt.Errorf("runs: unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func (t ByGroup) header() []string {
	return append([]string{"#", "trial", "status", "primary"}, t.Groups...)
}

// row renders e's cells with format; a group the trial did not score is
// "—".
func (t ByGroup) row(e GroupEntry, format func(float64) string) []string {
	row := []string{strconv.Itoa(e.Rank), e.Name, e.Status, format(e.Primary)}
	for _, g := range t.Groups {
		if v, ok := e.Groups[g]; ok {
			row = append(row, format(v))
		} else {
			row = append(row, "—")
		}
	}
	return row
}

func (t ByGroup) renderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := append([]string{"rank", "trial", "status", "primary"}, t.Groups...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, e := range t.Trials {
		row := t.row(e, num)
		for i := 4; i < len(row); i++ {
			if row[i] == "—" {
				row[i] = ""
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
