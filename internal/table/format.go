package table

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Format is an output format: what a --format flag names.
type Format uint8

// The formats. Text is the zero value: a renderer given "" writes text.
const (
	Text     Format = iota // a terminal table: "text", also "table" and ""
	Markdown               // a Markdown pipe table: "md", also "markdown"
	CSV                    // comma-separated values with a header line: "csv"
	JSON                   // indented JSON: "json"
)

// String returns the format's name: text, md, csv or json.
func (f Format) String() string {
	switch f {
	case Text:
		return "text"
	case Markdown:
		return "md"
	case CSV:
		return "csv"
	case JSON:
		return "json"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// All is every format, in the order messages list them.
var All = Formats{Text, JSON, Markdown, CSV}

// ParseFormat reads a --format value: "text", "table" or "" (Text), "md"
// or "markdown" (Markdown), "csv" or "json". Any other is an error that
// lists the formats: unknown format "xml" (want one of text, json, md, csv).
func ParseFormat(s string) (Format, error) {
	return All.Parse(s)
}

// Formats are the formats a renderer offers, in the order its messages
// and its flag's help list them.
type Formats []Format

// Names are the formats' names ("text", "md", ...), in order: the choices
// of a --format flag.
func (fs Formats) Names() []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.String()
	}
	return names
}

// Parse reads s as ParseFormat does and checks that fs offers the
// format; the error lists fs: unknown format "csv" (want one of text, md, json).
func (fs Formats) Parse(s string) (Format, error) {
	f, ok := Text, true
	switch s {
	case "text", "table", "":
	case "md", "markdown":
		f = Markdown
	case "csv":
		f = CSV
	case "json":
		f = JSON
	default:
		ok = false
	}
	if !ok || !slices.Contains(fs, f) {
		return 0, fmt.Errorf("unknown format %q (want one of %s)", s, strings.Join(fs.Names(), ", "))
	}
	return f, nil
}

// Output is one result in each format it comes in: Table, the result as
// a listing, and a writer per format that the listing does not serve
// (another text layout, a struct's own JSON). A format with neither is
// not offered.
type Output struct {
	Table                     *Table
	Text, Markdown, CSV, JSON func(io.Writer) error
}

// Write writes o to w in f (a format parsed with the Formats the renderer
// offers): with f's writer, else by rendering Table; a format o has
// neither for is an error.
func (o Output) Write(w io.Writer, f Format) error {
	var write func(io.Writer) error
	switch f {
	case Text:
		write = o.Text
	case Markdown:
		write = o.Markdown
	case CSV:
		write = o.CSV
	case JSON:
		write = o.JSON
	}
	switch {
	case write != nil:
		return write(w)
	case o.Table != nil:
		return o.Table.Render(w, f)
	}
	return fmt.Errorf("table: no %s output", f)
}
