package refdoc

import (
	"fmt"
	"strings"
)

// Page is one generated reference page: its path in the repository
// (slash-separated) and its Markdown.
type Page struct {
	Path string
	Text string
}

// Header starts every generated page: it says where the page comes from
// and how to make it again.
const Header = "<!-- generated from the code by `make docs` (go run ./cmd/tune/internal/refdoc/gendocs): edit the code, not this file -->\n\n"

// Pages returns every generated reference page. root is the repository's
// root: some pages read the code's own source there (the metrics' doc
// comments, the command help the tests pin).
func Pages(root string) ([]Page, error) {
	makers := []struct {
		path string
		make func(root string) (string, error)
	}{
		{"docs/reference/parameters.md", func(string) (string, error) { return parametersPage(), nil }},
		{"docs/reference/settings.md", func(string) (string, error) { return settingsPage() }},
		{"docs/reference/metrics.md", metricsPage},
		{"docs/reference/exit-codes.md", exitCodesPage},
		{"docs/reference/commands.md", commandsPage},
	}
	var pages []Page
	for _, m := range makers {
		text, err := m.make(root)
		if err != nil {
			return nil, fmt.Errorf("refdoc: %s: %w", m.path, err)
		}
		pages = append(pages, Page{Path: m.path, Text: Header + text})
	}
	return pages, nil
}

// table renders a Markdown table.
type table struct {
	b strings.Builder
}

func newTable(head ...string) *table {
	t := &table{}
	t.b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		t.b.WriteString(" --- |")
	}
	t.b.WriteString("\n")
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	t.b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

func (t *table) String() string { return t.b.String() }

// code wraps s in backticks.
func code(s string) string { return "`" + s + "`" }
