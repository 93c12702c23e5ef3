package backend_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// The manual's pages holding the tables checked here.
var (
	engineConfigPage = filepath.Join(repoRoot, "docs", "reference", "engine-config.md")
	weaviatePage     = filepath.Join(repoRoot, "docs", "engines", "weaviate.md")
)

// docTable returns, per row of the Markdown table of page whose header
// line is header, the backticked names of its first cell.
func docTable(t *testing.T, page, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		t.Fatalf("%s: no table %q", page, header)
	}
	var rows [][]string
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		first := strings.Split(line, "|")[1]
		var names []string
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			names = append(names, m[1])
		}
		rows = append(rows, names)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: table %q has no rows", page, header)
	}
	return rows
}

var backticked = regexp.MustCompile("`([^`]+)`")

// TestDocEngineKeys checks each row of the manual's engine config keys
// table: a key that reads as a parameter is the table's (or a known
// non-parameter key), and every parameter the engine takes has a row.
func TestDocEngineKeys(t *testing.T) {
	rows := docTable(t, engineConfigPage, "| key | default | range / values |")
	documented := map[string]bool{}
	for _, names := range rows {
		for _, n := range names {
			documented[n] = true
			if paramLike.MatchString(n) {
				if msg := checkName(n); msg != "" {
					t.Errorf("%s: %q: %s", engineConfigPage, n, msg)
				}
			}
		}
	}
	for _, n := range engine.ParamNames() {
		if !documented[n] {
			t.Errorf("%s: no row for the engine's parameter %q", engineConfigPage, n)
		}
	}
}

// TestDocWeaviateTable: the manual's table of the weaviate kind's
// parameters has a row for each of weaviate.Params and no other.
func TestDocWeaviateTable(t *testing.T) {
	var got []string
	for _, names := range docTable(t, weaviatePage, "| parameter | range | Weaviate |") {
		got = append(got, names...)
	}
	want := slices.Clone(weaviate.Params)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: the weaviate table names\n%q\nweaviate.Params\n%q", weaviatePage, got, want)
	}
}
