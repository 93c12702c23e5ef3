package table_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/fusiontune/fusiontune/internal/table"
)

// TestParseFormat reads every spelling tune's --format flags accept and
// refuses the others with the list of formats; a renderer's set accepts
// only its formats (each under every spelling) and lists them, in its
// order, when refusing another.
func TestParseFormat(t *testing.T) {
	offered := table.Formats{table.Text, table.Markdown, table.JSON}
	if got, want := offered.Names(), []string{"text", "md", "json"}; !slices.Equal(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if got, want := table.All.Names(), []string{"text", "json", "md", "csv"}; !slices.Equal(got, want) {
		t.Errorf("All.Names = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name    string
		offered table.Formats // nil: ParseFormat
		in      string
		want    table.Format
		err     string
	}{
		{"text", nil, "text", table.Text, ""},
		{"table", nil, "table", table.Text, ""},
		{"empty", nil, "", table.Text, ""},
		{"md", nil, "md", table.Markdown, ""},
		{"markdown", nil, "markdown", table.Markdown, ""},
		{"csv", nil, "csv", table.CSV, ""},
		{"json", nil, "json", table.JSON, ""},
		{"unknown", nil, "xml", 0, `unknown format "xml" (want one of text, json, md, csv)`},
		{"case matters", nil, "JSON", 0, `unknown format "JSON" (want one of text, json, md, csv)`},
		{"no trimming", nil, " md", 0, `unknown format " md" (want one of text, json, md, csv)`},
		{"offered table", offered, "table", table.Text, ""},
		{"offered markdown", offered, "markdown", table.Markdown, ""},
		{"offered json", offered, "json", table.JSON, ""},
		{"not offered", offered, "csv", 0, `unknown format "csv" (want one of text, md, json)`},
		{"unknown to a set", offered, "yaml", 0, `unknown format "yaml" (want one of text, md, json)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := table.ParseFormat
			if tc.offered != nil {
				parse = tc.offered.Parse
			}
			got, err := parse(tc.in)
			switch {
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("parse %q: error %v, want %q", tc.in, err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("parse %q = %v, %v, want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestOutputWrite: a format's own writer comes first, the table serves
// the formats without one, and a format with neither is an error.
func TestOutputWrite(t *testing.T) {
	tb := &table.Table{Columns: table.Headers("a")}
	tb.Append(1)
	errWrite := errors.New("disk full")
	o := table.Output{Table: tb, JSON: func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err },
		Markdown: func(io.Writer) error { return errWrite }}
	for _, tc := range []struct {
		f    table.Format
		want string
		err  error
	}{{table.JSON, "{}\n", nil}, {table.CSV, "a\n1\n", nil}, {table.Text, "+---+\n| a |\n+---+\n| 1 |\n+---+\n", nil}, {table.Markdown, "", errWrite}} {
		t.Run(tc.f.String(), func(t *testing.T) {
			var b bytes.Buffer
			if err := o.Write(&b, tc.f); !errors.Is(err, tc.err) || b.String() != tc.want {
				t.Errorf("Write = %q, %v, want %q, %v", b.String(), err, tc.want, tc.err)
			}
		})
	}
	if err := (table.Output{}).Write(&bytes.Buffer{}, table.CSV); err == nil || err.Error() != "table: no csv output" {
		t.Errorf("Write without a csv writer: %v", err)
	}
}

// FuzzParseFormat: whatever it reads names a format that reads back as
// itself; whatever it refuses is named in the error.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"", "text", "table", "md", "markdown", "csv", "json", "xml", "Text"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := table.ParseFormat(s)
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("unknown format")) {
				t.Errorf("ParseFormat(%q): %v", s, err)
			}
			return
		}
		if back, err := table.ParseFormat(got.String()); err != nil || back != got {
			t.Errorf("ParseFormat(%q) = %v, which reads back as %v, %v", s, got, back, err)
		}
	})
}
