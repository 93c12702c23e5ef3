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
// refuses the others with the list of formats.
func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     table.Format
		err      string
	}{
		{"text", "text", table.Text, ""},
		{"table", "table", table.Text, ""},
		{"empty", "", table.Text, ""},
		{"md", "md", table.Markdown, ""},
		{"markdown", "markdown", table.Markdown, ""},
		{"csv", "csv", table.CSV, ""},
		{"json", "json", table.JSON, ""},
		{"unknown", "xml", 0, `unknown format "xml" (want one of text, json, md, csv)`},
		{"case matters", "JSON", 0, `unknown format "JSON" (want one of text, json, md, csv)`},
		{"no trimming", " md", 0, `unknown format " md" (want one of text, json, md, csv)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := table.ParseFormat(tc.in)
			switch {
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("ParseFormat(%q) error = %v, want %q", tc.in, err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("ParseFormat(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestFormatsParse: a renderer's set accepts only its formats (each under
// every spelling) and lists them, in its order, when refusing another.
func TestFormatsParse(t *testing.T) {
	offered := table.Formats{table.Text, table.Markdown, table.JSON}
	if got, want := offered.Names(), []string{"text", "md", "json"}; !slices.Equal(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if got, want := table.All.Names(), []string{"text", "json", "md", "csv"}; !slices.Equal(got, want) {
		t.Errorf("All.Names = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		name, in string
		want     table.Format
		err      string
	}{
		{"table", "table", table.Text, ""},
		{"markdown", "markdown", table.Markdown, ""},
		{"json", "json", table.JSON, ""},
		{"not offered", "csv", 0, `unknown format "csv" (want one of text, md, json)`},
		{"unknown", "yaml", 0, `unknown format "yaml" (want one of text, md, json)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := offered.Parse(tc.in)
			switch {
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("Parse(%q) error = %v, want %q", tc.in, err, tc.err)
			case tc.err == "" && (err != nil || got != tc.want):
				t.Errorf("Parse(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
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
