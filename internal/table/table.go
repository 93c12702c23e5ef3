package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Table is a listing kept as data until Render writes it.
type Table struct {
	Columns []Column
	// Rows are the cells, one per column: a string, a number or any
	// value fmt prints; nil is a missing value.
	Rows [][]any
	// Title is a paragraph above the table and Notes are lines below it,
	// in text and Markdown; CSV and JSON carry neither.
	Title string
	Notes []string
	// Missing is what text and Markdown show for a nil cell ("—"); CSV
	// leaves it empty and JSON leaves it out.
	Missing string
	// Style is how Text draws the table.
	Style Style

	// What text and Markdown show of the data (CSV and JSON always carry
	// all of it): see fit.go.

	// MaxWidth is the widest a Text line may be, in characters (0: no
	// limit). Columns are left out, the first to go first (Column.Drop),
	// until the table fits, then the cells of a Shrink column are cut;
	// the title and notes are wrapped at spaces.
	MaxWidth int
	// Top is how many rows text and Markdown show (0: all), besides the
	// rows Keep names.
	Top int
	// Keep lists rows (indexes into Rows) shown whatever Top says.
	Keep []int
	// HideEmpty leaves out of text and Markdown every column whose cells
	// are all missing (nil, or Missing when that is set).
	HideEmpty bool
	// CutNote words the note under a text or Markdown table that left
	// out rows (Top) or columns (MaxWidth); nil words it as DefaultCutNote
	// does. It is not called when nothing was left out.
	CutNote func(rows int, columns []string, width int) string
}

// Column is one column of a Table.
type Column struct {
	// Header heads the column in text and Markdown; Key in CSV and as the
	// JSON field ("" is Header).
	Header, Key string
	// Align places the column's cells in text and Markdown.
	Align Align
	// Display shows a cell's value in text and Markdown (f4 for a score);
	// nil shows it as CSV does, with fmt.Sprint.
	Display func(v any) string
	// Drop is the column's turn to be left out of a text table wider than
	// MaxWidth: 0 never; otherwise the highest Drop goes first, the
	// rightmost of equal ones first.
	Drop int
	// Shrink lets a text table wider than MaxWidth, once no column is
	// left to drop, cut this column's cells to as few as MinWidth
	// characters (at least the header's), ending them with "…".
	Shrink   bool
	MinWidth int
}

// Align is a column's alignment.
type Align uint8

// The alignments.
const (
	// Auto is the style's own: Boxed right-aligns the cells that read as
	// numbers and left-aligns the others; the column styles and Markdown
	// align left.
	Auto Align = iota
	Left
	Right
)

// Style is how Text draws a table.
type Style uint8

// The styles.
const (
	// Boxed is a terminal table with borders (the tablewriter package):
	// headers centred, numbers right-aligned, widths in terminal cells.
	Boxed Style = iota
	// Plain is columns two spaces apart, header first, without borders;
	// widths count runes, the last column is not padded.
	Plain
	// Indented is Plain with every line indented by two spaces and its
	// trailing blanks trimmed: a table inside a text report.
	Indented
)

// Headers returns a column per header, each with the defaults.
func Headers(headers ...string) []Column {
	cols := make([]Column, len(headers))
	for i, h := range headers {
		cols[i] = Column{Header: h}
	}
	return cols
}

// Append adds a row of cells.
func (t *Table) Append(cells ...any) {
	t.Rows = append(t.Rows, cells)
}

// AppendStrings adds a row of cells that are all strings.
func (t *Table) AppendStrings(cells ...string) {
	row := make([]any, len(cells))
	for i, c := range cells {
		row[i] = c
	}
	t.Rows = append(t.Rows, row)
}

// Render writes the table to w in f.
func (t *Table) Render(w io.Writer, f Format) error {
	switch f {
	case Text:
		return t.renderText(w)
	case Markdown:
		return t.renderMarkdown(w)
	case CSV:
		return t.renderCSV(w)
	case JSON:
		return t.renderJSON(w)
	}
	return fmt.Errorf("table: unknown format %s", f)
}

// headers are the columns' headers as text and Markdown show them.
func (t *Table) headers() []string {
	h := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		h[i] = c.Header
	}
	return h
}

// keys are the columns' names in CSV and JSON.
func (t *Table) keys() []string {
	k := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		k[i] = c.Key
		if k[i] == "" {
			k[i] = c.Header
		}
	}
	return k
}

// shown are the rows as text and Markdown show them.
func (t *Table) shown() [][]string {
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = make([]string, len(r))
		for j, v := range r {
			switch {
			case v == nil:
				rows[i][j] = t.Missing
			case j < len(t.Columns) && t.Columns[j].Display != nil:
				rows[i][j] = t.Columns[j].Display(v)
			default:
				rows[i][j] = fmt.Sprint(v)
			}
		}
	}
	return rows
}

// renderText writes the title, the table as its Style draws it and the
// notes, shaped (see shaped).
func (t *Table) renderText(w io.Writer) error {
	v := t.shaped(true)
	var b strings.Builder
	if v.Title != "" {
		b.WriteString(v.Title + "\n")
	}
	v.draw(&b)
	for _, n := range v.Notes {
		b.WriteString(n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// draw writes the table's lines as its Style draws them.
func (t *Table) draw(b *strings.Builder) {
	switch t.Style {
	case Boxed:
		t.boxed(b)
	case Plain:
		t.columns(b, "", false)
	default:
		t.columns(b, "  ", true)
	}
}

// renderMarkdown writes a pipe table, "|" escaped in the cells (the
// headers are written as they are), with the title as a paragraph above
// and each note after a blank line below.
func (t *Table) renderMarkdown(w io.Writer) error {
	t = t.shaped(false)
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n\n")
	}
	b.WriteString("| " + strings.Join(t.headers(), " | ") + " |\n|")
	for _, c := range t.Columns {
		b.WriteString(map[Align]string{Auto: " --- |", Left: " :--- |", Right: " ---: |"}[c.Align])
	}
	b.WriteString("\n")
	for _, r := range t.shown() {
		for i, c := range r {
			r[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderCSV writes the keys, then a line per row (encoding/csv quotes
// what needs it).
func (t *Table) renderCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(t.keys())
	for _, r := range t.Rows {
		line := make([]string, len(r))
		for i, v := range r {
			if v != nil {
				line[i] = fmt.Sprint(v)
			}
		}
		cw.Write(line)
	}
	cw.Flush()
	return cw.Error()
}

// renderJSON writes an array with an object per row, its fields in column
// order, a missing value left out, indented by two spaces, HTML
// characters unescaped.
func (t *Table) renderJSON(w io.Writer) error {
	keys := t.keys()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('[')
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		n := 0
		for j, v := range r {
			if v == nil || j >= len(keys) {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			if err := enc.Encode(keys[j]); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := enc.Encode(v); err != nil {
				return fmt.Errorf("table: column %q: %w", keys[j], err)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}
