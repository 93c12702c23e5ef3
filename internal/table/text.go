package table

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
)

// boxed draws the Boxed style with tablewriter: borders, headers as
// given (not upper-cased), cells never wrapped.
func (t *Table) boxed(b *strings.Builder) {
	tw := tablewriter.NewWriter(b)
	tw.SetHeader(t.headers())
	tw.SetAutoFormatHeaders(false)
	tw.SetAutoWrapText(false)
	if slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Align != Auto }) {
		align := make([]int, len(t.Columns))
		for i, c := range t.Columns {
			switch c.Align {
			case Left:
				align[i] = tablewriter.ALIGN_LEFT
			case Right:
				align[i] = tablewriter.ALIGN_RIGHT
			}
		}
		tw.SetColumnAlignment(align)
	}
	tw.AppendBulk(t.shown())
	tw.Render()
}

// columns draws the Plain and Indented styles: each line starts with
// indent, and its cells are padded to their column's width (in runes)
// and two spaces apart; the last cell is not padded after, and trim drops
// a line's trailing blanks.
func (t *Table) columns(b *strings.Builder, indent string, trim bool) {
	lines := append([][]string{t.headers()}, t.shown()...)
	width := make([]int, len(t.Columns))
	for _, r := range lines {
		for i, c := range r[:min(len(r), len(width))] {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range lines {
		var line strings.Builder
		line.WriteString(indent)
		for i, c := range r {
			fill, last := 0, i == len(r)-1
			if i < len(width) {
				fill = width[i] - utf8.RuneCountInString(c)
			}
			switch {
			case i < len(t.Columns) && t.Columns[i].Align == Right:
				line.WriteString(strings.Repeat(" ", fill) + c)
			case last:
				line.WriteString(c)
			default:
				line.WriteString(c + strings.Repeat(" ", fill))
			}
			if !last {
				line.WriteString("  ")
			}
		}
		s := line.String()
		if trim {
			s = strings.TrimRight(s, " ")
		}
		b.WriteString(s + "\n")
	}
}
