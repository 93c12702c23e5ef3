package experiments_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/experiments"
)

var update = flag.Bool("update", false, "rewrite the .err and .out golden files of testdata/golden")

// fixtures lists testdata/golden/*.good.* and *.bad.* (files or BEIR
// folders), leaving out the golden files and the judgments companions.
func fixtures(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob("testdata/golden/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		base := filepath.Base(p)
		if !strings.Contains(base, ".good") && !strings.Contains(base, ".bad") {
			continue
		}
		if ext := filepath.Ext(base); ext == ".err" || ext == ".out" || ext == ".qrels" || strings.HasSuffix(base, ".judgments.jsonl") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// companionJudgments returns the separate judgments file of a fixture, if any.
func companionJudgments(path string) string {
	for _, suffix := range []string{".qrels", ".judgments.jsonl"} {
		if _, err := os.Stat(path + suffix); err == nil {
			return path + suffix
		}
	}
	return ""
}

func TestLoadGoldenSetFixtures(t *testing.T) {
	bad := 0
	for _, path := range fixtures(t) {
		isBad := strings.Contains(filepath.Base(path), ".bad")
		if isBad {
			bad++
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			gs, err := experiments.LoadGoldenSet(path, experiments.LoadOptions{Judgments: companionJudgments(path)})
			if isBad {
				if err == nil {
					t.Fatalf("loaded %d queries; want an error", len(gs.Queries))
				}
				if !errors.Is(err, experiments.ErrInvalid) {
					t.Errorf("error does not wrap ErrInvalid: %v", err)
				}
				compareGolden(t, path+".err", err.Error()+"\n")
				return
			}
			if err != nil {
				t.Fatalf("unexpected error:\n%v", err)
			}
			compareGolden(t, path+".out", dump(gs))
		})
	}
	if bad < 15 {
		t.Errorf("%d bad fixtures; want at least 15", bad)
	}
}

// dump renders everything a load produced except the hash, for golden files.
func dump(gs *experiments.GoldenSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "source %s\ncategories %q\nscale %s\n", gs.Source, gs.Categories, gs.Scale)
	for _, q := range gs.Queries {
		fmt.Fprintf(&b, "query %q at %s\n  text %q lang %q cat %q diff %q routing %q notes %q\n",
			q.ID, q.Pos, q.Text, q.Language, q.Category, q.Difficulty, q.ExpectedRouting, q.Notes)
		if q.Meta != nil {
			meta, _ := json.Marshal(q.Meta)
			fmt.Fprintf(&b, "  meta %s\n", meta)
		}
		for _, j := range q.Judgments {
			fmt.Fprintf(&b, "  judgment doc %q substring %q pattern %q grade %d at %s\n", j.DocID, j.Substring, j.Pattern, j.Grade, j.Pos)
			if j.Source != "" {
				fmt.Fprintf(&b, "    source %s\n", j.Source)
			}
		}
	}
	if c := gs.SourceCounts(); len(c) > 1 || c["manual"] == 0 && len(c) > 0 {
		fmt.Fprintf(&b, "sources %v\n", c)
	}
	for _, w := range gs.Warnings {
		fmt.Fprintf(&b, "warning %s\n", w.Error())
	}
	return b.String()
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func readFixture(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/golden", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func TestLoadGoldenSetOptions(t *testing.T) {
	tests := []struct {
		name string
		path string
		opts experiments.LoadOptions
		want string // error text; "" for success
	}{
		{"unknown format", "testdata/golden/basic.good.json", experiments.LoadOptions{Format: "csv"},
			`load golden set "testdata/golden/basic.good.json": unknown format "csv" (expected native, trec or beir)`},
		{"topics without judgments", "testdata/golden/topics.good.tsv", experiments.LoadOptions{},
			`load golden set "testdata/golden/topics.good.tsv": TREC topics need a judgments file (qrels or JSONL)`},
		{"beir with judgments", "testdata/golden/beir.good", experiments.LoadOptions{Judgments: "x.qrels"},
			`load golden set "testdata/golden/beir.good": a BEIR folder carries its own qrels; judgments file "x.qrels" not allowed`},
		{"missing beir split", "testdata/golden/beir.good", experiments.LoadOptions{Split: "dev"},
			"load golden set: open testdata/golden/beir.good/qrels/dev.tsv: no such file or directory"},
		{"explicit native format", "testdata/golden/list.good.yaml", experiments.LoadOptions{Format: "native"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := experiments.LoadGoldenSet(tc.path, tc.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}
