package backend_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

var update = flag.Bool("update", false, "rewrite the README's generated parameter table")

var readme = filepath.Join(repoRoot, "README.md")

// The markers around the README's generated parameter table.
const (
	tableBegin = "<!-- parameter table: generated from backend.ParamTable; go test ./backend -run TestReadmeParameterTable -update -->\n"
	tableEnd   = "<!-- end of parameter table -->\n"
)

// parameterTable is the README's table of the parameters experiment files
// take: the table's entries but the ConfigKey ones, then the weights and
// custom.*.
func parameterTable() string {
	var b strings.Builder
	b.WriteString("| parameter | value | stage | what it sets |\n| --- | --- | --- | --- |\n")
	row := func(name, value, stage, doc string) {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, value, stage, doc)
	}
	weight, _ := backend.LookupParam(backend.WeightPattern)
	for _, p := range append(backend.ParamTable(), weight) {
		if p.ConfigKey {
			continue
		}
		value := p.Kind.String()
		if p.Values != nil {
			value = "`" + strings.Join(p.Values, "`, `") + "`"
		}
		stage := "query-time"
		switch {
		case p.IndexTime:
			stage = "index-time"
		case p.Replayable:
			stage = "query-time, replayed"
		}
		row(p.Name, value, stage, strings.ReplaceAll(p.Doc, "<retriever>", "`<retriever>`"))
	}
	row(backend.CustomPattern, "anything", "passed through", "a value for external backends' templates, unchecked")
	return b.String()
}

// TestReadmeParameterTable: the README's parameter table is the one the
// parameter table generates (-update rewrites it).
func TestReadmeParameterTable(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md: no %q ... %q block", tableBegin, tableEnd)
	}
	got, want := text[i+len(tableBegin):j], parameterTable()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(readme, []byte(text[:i+len(tableBegin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's parameter table is not the table's (go test ./backend -run TestReadmeParameterTable -update)\ngot:\n%s\nwant:\n%s", got, want)
}

// readmeTable returns, per row of the Markdown table whose header line is
// header, the backticked names of its first cell.
func readmeTable(t *testing.T, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, header)
	if start < 0 {
		t.Fatalf("README.md: no table %q", header)
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
		t.Fatalf("README.md: table %q has no rows", header)
	}
	return rows
}

var backticked = regexp.MustCompile("`([^`]+)`")

// TestReadmeEngineKeys checks each row of the README's engine config keys
// table: a key that reads as a parameter is the table's (or a known
// non-parameter key), and every parameter the engine takes has a row.
func TestReadmeEngineKeys(t *testing.T) {
	rows := readmeTable(t, "| key | default | range / values |")
	documented := map[string]bool{}
	for _, names := range rows {
		for _, n := range names {
			documented[n] = true
			if paramLike.MatchString(n) {
				if msg := checkName(n); msg != "" {
					t.Errorf("README.md engine config keys: %q: %s", n, msg)
				}
			}
		}
	}
	for _, n := range engine.ParamNames() {
		if !documented[n] {
			t.Errorf("README.md engine config keys: no row for the engine's parameter %q", n)
		}
	}
}

// TestReadmeWeaviateTable: the README's table of the weaviate kind's
// parameters has a row for each of weaviate.Params and no other.
func TestReadmeWeaviateTable(t *testing.T) {
	var got []string
	for _, names := range readmeTable(t, "| parameter | range | Weaviate |") {
		got = append(got, names...)
	}
	want := slices.Clone(weaviate.Params)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("README.md's weaviate table names\n%q\nweaviate.Params\n%q", got, want)
	}
}
