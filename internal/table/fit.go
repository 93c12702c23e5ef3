package table

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DefaultCutNote words what a table left out when its CutNote is nil:
// "(3 more rows; left out to fit 120 characters: routing, P@10)".
func DefaultCutNote(rows int, columns []string, width int) string {
	var parts []string
	if rows == 1 {
		parts = append(parts, "1 more row")
	} else if rows > 1 {
		parts = append(parts, fmt.Sprintf("%d more rows", rows))
	}
	if len(columns) > 0 {
		parts = append(parts, fmt.Sprintf("left out to fit %d characters: %s", width, strings.Join(columns, ", ")))
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// shaped is t as text (text true) or Markdown shows it: its cells as
// they are shown, the rows Top and Keep leave, without the columns
// HideEmpty leaves out and, in text, those MaxWidth drops, the Shrink
// columns' cells cut to fit, a note on what was left out first among the
// notes, and the title and notes wrapped to MaxWidth.
func (t *Table) shaped(text bool) *Table {
	v := &Table{Title: t.Title, Notes: slices.Clone(t.Notes), Missing: t.Missing, Style: t.Style}
	rows := t.Rows
	cut := 0
	if t.Top > 0 && len(rows) > t.Top {
		rows = nil
		for i, r := range t.Rows {
			if i < t.Top || slices.Contains(t.Keep, i) {
				rows = append(rows, r)
			}
		}
		cut = len(t.Rows) - len(rows)
	}
	shown := (&Table{Columns: t.Columns, Rows: rows, Missing: t.Missing}).shown()
	for _, r := range shown {
		cells := make([]any, len(r))
		for i, c := range r {
			cells[i] = c
		}
		v.Rows = append(v.Rows, cells)
	}
	var kept []int
	for i, c := range t.Columns {
		c.Display = nil
		if t.HideEmpty && len(rows) > 0 && t.allMissing(rows, i) {
			continue
		}
		v.Columns = append(v.Columns, c)
		kept = append(kept, i)
	}
	if len(kept) < len(t.Columns) {
		v.keepCells(kept)
	}
	var dropped []string
	if text && t.MaxWidth > 0 {
		dropped = v.fit(t.MaxWidth)
	}
	if cut > 0 || len(dropped) > 0 {
		note := t.CutNote
		if note == nil {
			note = DefaultCutNote
		}
		v.Notes = append([]string{note(cut, dropped, t.MaxWidth)}, v.Notes...)
	}
	if text && t.MaxWidth > 0 {
		v.Title = wrap(v.Title, t.MaxWidth)
		for i, n := range v.Notes {
			v.Notes[i] = wrap(n, t.MaxWidth)
		}
	}
	return v
}

// allMissing reports whether column i of every row is missing: nil, or
// the Missing text.
func (t *Table) allMissing(rows [][]any, i int) bool {
	for _, r := range rows {
		if i < len(r) && r[i] != nil && (t.Missing == "" || r[i] != t.Missing) {
			return false
		}
	}
	return true
}

// keepCells keeps, in every row, the cells of the columns kept lists.
func (v *Table) keepCells(kept []int) {
	for j, r := range v.Rows {
		cells := make([]any, 0, len(kept))
		for _, i := range kept {
			if i < len(r) {
				cells = append(cells, r[i])
			}
		}
		v.Rows[j] = cells
	}
}

// fit drops columns (Drop) and cuts Shrink columns until the drawn table
// is at most width characters wide, as far as they allow, and returns
// the headers of the dropped columns in the order they were dropped. A
// column dropped early that fits once later ones are gone (a narrow
// metric beside a wide interval) is put back, the most important first.
func (v *Table) fit(width int) []string {
	cols := slices.Clone(v.Columns)
	rows := make([][]any, len(v.Rows))
	for j, r := range v.Rows {
		rows[j] = slices.Clone(r)
	}
	keep := make([]bool, len(cols))
	for i := range keep {
		keep[i] = true
	}
	show := func() { v.Columns, v.Rows = project(cols, rows, keep) }
	var dropped []int
	for v.width() > width {
		i := nextDrop(cols, keep)
		if i < 0 {
			break
		}
		keep[i] = false
		dropped = append(dropped, i)
		show()
	}
	for k := len(dropped) - 1; k >= 0; k-- {
		i := dropped[k]
		keep[i] = true
		show()
		if v.width() > width {
			keep[i] = false
			show()
		}
	}
	if v.width() > width {
		v.shrink(v.width() - width)
	}
	var names []string
	for _, i := range dropped {
		if !keep[i] {
			names = append(names, cols[i].Header)
		}
	}
	return names
}

// project is the columns and the rows' cells of cols kept (keep).
func project(cols []Column, rows [][]any, keep []bool) ([]Column, [][]any) {
	var out []Column
	for i, c := range cols {
		if keep[i] {
			out = append(out, c)
		}
	}
	cells := make([][]any, len(rows))
	for j, r := range rows {
		row := make([]any, 0, len(out))
		for i, cell := range r {
			if i < len(keep) && keep[i] {
				row = append(row, cell)
			}
		}
		cells[j] = row
	}
	return out, cells
}

// width is the widest line of the drawn table, title and notes aside.
func (v *Table) width() int {
	var b strings.Builder
	v.draw(&b)
	w := 0
	for line := range strings.Lines(b.String()) {
		w = max(w, utf8.RuneCountInString(strings.TrimSuffix(line, "\n")))
	}
	return w
}

// nextDrop is the index in cols of the kept column to drop next: the
// highest Drop, the rightmost of equal ones; -1 when none may be dropped.
func nextDrop(cols []Column, keep []bool) int {
	best := -1
	for i, c := range cols {
		if keep[i] && c.Drop > 0 && (best < 0 || c.Drop >= cols[best].Drop) {
			best = i
		}
	}
	return best
}

// shrink cuts the cells of the Shrink columns, the first first, by up to
// excess characters in all, each to no fewer than its MinWidth (and its
// header's width).
func (v *Table) shrink(excess int) {
	for i, c := range v.Columns {
		if !c.Shrink || excess <= 0 {
			continue
		}
		wide := 0
		for _, r := range v.Rows {
			if i < len(r) {
				wide = max(wide, utf8.RuneCountInString(r[i].(string)))
			}
		}
		to := max(wide-excess, c.MinWidth, utf8.RuneCountInString(c.Header), 2)
		if to >= wide {
			continue
		}
		for _, r := range v.Rows {
			if i < len(r) {
				r[i] = Cut(r[i].(string), to)
			}
		}
		excess -= wide - to
	}
}

// Cut shortens s to at most n characters, ending it with "…": after the
// last space or comma of the part kept when that keeps at least half of
// it, else within a word. s fits as it is when it is short enough.
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	keep := r[:max(n-1, 0)]
	if i := lastIndexFunc(keep, func(c rune) bool { return c == ' ' || c == ',' }); i+1 >= len(keep)/2 && i >= 0 {
		keep = keep[:i+1]
	}
	return strings.TrimRight(string(keep), " ") + "…"
}

func lastIndexFunc(r []rune, f func(rune) bool) int {
	for i := len(r) - 1; i >= 0; i-- {
		if f(r[i]) {
			return i
		}
	}
	return -1
}

// wrap breaks each line of s longer than width characters at spaces
// into lines of at most width, continuing a broken line two spaces
// further in than it starts; a word longer than that stands alone on its
// line. Lines that fit are left as they are.
func wrap(s string, width int) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, line := range lines {
		if utf8.RuneCountInString(line) <= width {
			out = append(out, line)
			continue
		}
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		cur, indent := "", lead
		for _, word := range strings.Fields(line) {
			switch {
			case cur == "":
				cur = indent + word
			case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(word) <= width:
				cur += " " + word
			default:
				out = append(out, cur)
				indent = lead + "  "
				cur = indent + word
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}
