package table_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/table"
)

// wide is a leaderboard-like table: a long name column that may shrink,
// a column of no information, and columns to drop in turn.
func wide(style table.Style) *table.Table {
	t := &table.Table{Style: style, Missing: "—", HideEmpty: true,
		Notes: []string{"a note long enough that a narrow table has to wrap it at the spaces between its words"},
		Columns: []table.Column{{Header: "#"}, {Header: "trial", Shrink: true, MinWidth: 10}, {Header: "primary"},
			{Header: "m1", Drop: 2}, {Header: "m2", Drop: 2}, {Header: "routing", Drop: 3}, {Header: "status"}}}
	t.Append(1, "tpe-001 depth=40,k=5,method=rrf,w.bm25=0.849", "0.4524", "0.7388", "0.8084", nil, "ok")
	t.Append(2, "baseline", "0.4483", "0.7238", "0.7876", nil, "ok, baseline")
	t.Append(3, "tpe-002 depth=120,k=37,method=linear", "0.4123", "0.6677", "0.7572", nil, "ok")
	return t
}

func render(t *testing.T, tb *table.Table, f table.Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := tb.Render(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func widest(s string) int {
	w := 0
	for _, line := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(line))
	}
	return w
}

// TestFit: an empty column is hidden in text and Markdown (never in CSV);
// a table wider than MaxWidth drops the columns with the highest Drop
// first, the rightmost of equal ones first, then cuts the Shrink column at
// a comma; the note says what was left out, and notes wrap.
func TestFit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		width   int
		want    string // the header line of the plain table
		dropped string
		cut     bool
	}{
		{"no limit", 0, "#  trial                                         primary  m1      m2      status", "", false},
		{"fits", 87, "#  trial                                         primary  m1      m2      status", "", false},
		{"drops m2", 85, "#  trial                                         primary  m1      status", "m2", false},
		{"drops both", 75, "#  trial                                         primary  status", "m2, m1", false},
		{"cuts the name", 50, "#  trial                     primary  status", "m2, m1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := wide(table.Plain)
			tb.MaxWidth = tc.width
			out := render(t, tb, table.Text)
			lines := strings.Split(out, "\n")
			if lines[0] != tc.want {
				t.Errorf("header %q, want %q:\n%s", lines[0], tc.want, out)
			}
			if tc.width > 0 && widest(out) > tc.width {
				t.Errorf("a line is %d wide, over %d:\n%s", widest(out), tc.width, out)
			}
			if note := "left out to fit"; (tc.dropped != "") != strings.Contains(out, note) ||
				tc.dropped != "" && !strings.Contains(out, note+" "+strconv.Itoa(tc.width)+" characters: "+tc.dropped+")") {
				t.Errorf("want the columns %q named as left out:\n%s", tc.dropped, out)
			}
			if cut := strings.Contains(out, "tpe-001 depth=40,k=5,…"); cut != tc.cut {
				t.Errorf("name cut at a comma: %v, want %v:\n%s", cut, tc.cut, out)
			}
			if strings.Contains(out, "routing") && !strings.Contains(out, "left out") {
				t.Errorf("the empty routing column is shown:\n%s", out)
			}
		})
	}
	if csv := render(t, wide(table.Plain), table.CSV); !strings.HasPrefix(csv, "#,trial,primary,m1,m2,routing,status\n") {
		t.Errorf("CSV lost a column:\n%s", csv)
	}
	md := render(t, wide(table.Plain), table.Markdown)
	if !strings.HasPrefix(md, "| # | trial | primary | m1 | m2 | status |\n") {
		t.Errorf("Markdown:\n%s", md)
	}
}

// TestFitBoxed: the boxed style counts its borders.
func TestFitBoxed(t *testing.T) {
	tb := wide(table.Boxed)
	tb.MaxWidth = 60
	out := render(t, tb, table.Text)
	if widest(out) > 60 || !strings.Contains(out, "| # |") || strings.Contains(out, " m1 ") {
		t.Errorf("boxed at 60:\n%s", out)
	}
}

// TestTop: Top rows and the Keep rows are shown, the note counts the
// others; a custom CutNote words it.
func TestTop(t *testing.T) {
	tb := wide(table.Plain)
	tb.Top, tb.Keep = 1, []int{2}
	out := render(t, tb, table.Text)
	if strings.Contains(out, "baseline") || !strings.Contains(out, "tpe-002") || !strings.Contains(out, "\n(1 more row)\n") {
		t.Errorf("top 1 and row 2:\n%s", out)
	}
	tb.CutNote = func(rows int, cols []string, width int) string { return "cut " + strconv.Itoa(rows) }
	if md := render(t, tb, table.Markdown); !strings.Contains(md, "\ncut 1\n") || strings.Count(md, "\n| ") != 3 {
		t.Errorf("Markdown top 1 and row 2:\n%s", md)
	}
	if csv := render(t, tb, table.CSV); strings.Count(csv, "\n") != 4 {
		t.Errorf("CSV cut rows:\n%s", csv)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"tpe-001 depth=40,k=5,method=rrf", 24, "tpe-001 depth=40,k=5,…"},
		{"tpe-001 depth=40,k=5,method=rrf", 12, "tpe-001…"},
		{"abcdefghijklmnop", 8, "abcdefg…"},
		{"ab, cdefghijklmnop", 10, "ab,…"},
		{"a, bcdefghijklmnop", 10, "a, bcdefg…"},
	} {
		if got := table.Cut(tc.in, tc.n); got != tc.want || utf8.RuneCountInString(got) > tc.n {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestWrap: notes and the title wrap at spaces under MaxWidth, a broken
// line continuing two spaces in.
func TestWrap(t *testing.T) {
	tb := wide(table.Plain)
	tb.MaxWidth = 40
	tb.Title = "  indented title that is longer than forty characters"
	out := render(t, tb, table.Text)
	if !strings.Contains(out, "a note long enough that a narrow table\n  has to wrap it at the spaces between\n  its words\n") ||
		!strings.HasPrefix(out, "  indented title that is longer than\n    forty characters\n") {
		t.Errorf("wrapped:\n%s", out)
	}
}
