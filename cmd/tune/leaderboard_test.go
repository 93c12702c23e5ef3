package main_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// readableExperiment is a grid that writes its one-value axes into every
// trial's name (retrievers, method, chunk.size) over a baseline that
// leaves fusion.k, the weights, the retrievers and chunk.size unset.
const readableExperiment = `{
  "baseline": {"name": "baseline", "params": {"fusion.method": "rrf"}},
  "grid": {
    "retrievers": [["bm25", "dense"]],
    "fusion.method": ["rrf"],
    "fusion.k": [5, 20, 100],
    "fusion.weights": [{"bm25": 0.3, "dense": 0.7}, {"bm25": 0.7, "dense": 0.3}],
    "chunk.size": [0]
  }
}`

// widest is the length in characters of s's longest line.
func widest(s string) int {
	w := 0
	for line := range strings.Lines(s) {
		w = max(w, utf8.RuneCountInString(strings.TrimSuffix(line, "\n")))
	}
	return w
}

// TestLeaderboardReadable plays a sweep whose generated names repeat
// one-value axes: its leaderboard fits 120 characters, shows each trial
// under the parameters that vary, records the baseline's effective
// values (the engine's defaults), and every command takes the label as
// shown; --top, --columns and --wide shape the text table; the report
// charts fusion.k on a numeric axis with the baseline at k 60.
func TestLeaderboardReadable(t *testing.T) {
	e := newSweepEnv(t, sweepSettings+"gates: [\"NDCG@10 >= 0\"]\n")
	exp := e.write("grid.json", readableExperiment)
	run, stdout, stderr := e.newRun(t, "--experiments", exp)
	full := "retrievers=bm25+dense,method=rrf,k=20,w=bm25:0.7/dense:0.3,chunk.size=0"
	if widest(stdout) > 120 || !strings.Contains(stdout, "| k=20,w=bm25:0.7/dense:0.3 ") || strings.Contains(stdout, "| retrievers=") {
		t.Errorf("the sweep's leaderboard (widest line %d), want labels k=...,w=... within 120 characters:\n%s\n%s", widest(stdout), stdout, stderr)
	}

	var lb struct {
		Trials []struct {
			Name     string         `json:"name"`
			Defaults map[string]any `json:"defaults"`
		} `json:"trials"`
	}
	data, err := os.ReadFile(filepath.Join(run, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	for _, tr := range lb.Trials {
		want := map[string]any{"fusion.k": 60.0, "fusion.weights.bm25": 1.0, "fusion.weights.dense": 1.0, "retrievers": []any{"bm25", "dense"}, "chunk.size": 0.0}
		if tr.Name == "baseline" && !mapsEqualJSON(tr.Defaults, want) {
			t.Errorf("baseline defaults %v, want %v", tr.Defaults, want)
		}
		if tr.Name != "baseline" && tr.Defaults != nil {
			t.Errorf("trial %s has defaults %v", tr.Name, tr.Defaults)
		}
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"gate takes the label", []string{"gate", "latest", "k=20,w=bm25:0.7/dense:0.3"}, 0, "gates on trial " + full},
		{"gate takes the full name", []string{"gate", "latest", full}, 0, "gates on trial " + full},
		{"compare takes a label", []string{"compare", "latest:baseline", "latest:k=20,w=bm25:0.7/dense:0.3"}, 0, full},
		{"an ambiguous label prefix", []string{"gate", "latest", "k=20"}, 2, "#"},
		{"--wide and --columns", []string{"leaderboard", "--wide", "--columns", "80"}, 2, "--wide and --columns: give one"},
		{"--columns out of range", []string{"leaderboard", "--columns", "10"}, 2, "--columns: want an integer in [40, 10000] (got 10)"},
		{"--top below 0", []string{"leaderboard", "--top", "-1"}, 2, "--top: want an integer >= 0 (got -1)"},
		{"--top with json", []string{"leaderboard", "--top", "2", "--format", "json"}, 2, `--top: only for --format text or md (got "json")`},
		{"--wide with csv", []string{"leaderboard", "--wide", "--format", "csv"}, 2, `--wide: only for --format text (got "csv")`},
		{"--top with --by", []string{"leaderboard", "--top", "2", "--by", "category"}, 2, "--top: for the leaderboard itself, not with --by or --pareto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := e.run(tc.args...)
			out := stdout
			if tc.code != 0 {
				out = stderr
			}
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s\n%s", code, tc.code, tc.want, stdout, stderr)
			}
		})
	}

	top, _, _ := e.run("leaderboard", "--top", "2")
	rows := regexp.MustCompile(`(?m)^\| +\d+ \|`).FindAllString(top, -1)
	if len(rows) != 2 && len(rows) != 3 || !strings.Contains(top, "| baseline") || !strings.Contains(top, "more trials: --top 0 shows all") {
		t.Errorf("--top 2: %d rows, want the 2 best and the baseline, and a note:\n%s", len(rows), top)
	}
	narrow, _, _ := e.run("leaderboard", "--columns", "80")
	wide, _, _ := e.run("leaderboard", "--wide")
	if widest(narrow) > 80 || !strings.Contains(narrow, "left out to fit 80 characters") || !strings.Contains(wide, "decision CI") || strings.Contains(wide, "left out") {
		t.Errorf("--columns 80 (widest %d):\n%s\n--wide:\n%s", widest(narrow), narrow, wide)
	}

	// The report's fusion.k chart: numeric ticks in numeric order, the
	// baseline drawn at 60 with its default said.
	page, err := os.ReadFile(filepath.Join(run, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<svg [^>]*aria-label="primary score by fusion.k[^"]*".*?</svg>`).Find(page)
	if m == nil {
		t.Fatalf("no fusion.k chart in the report")
	}
	if err := xml.Unmarshal(m, new(struct{})); err != nil {
		t.Fatalf("fusion.k chart is not well-formed: %v", err)
	}
	var ticks []float64
	for _, tick := range regexp.MustCompile(`<text class="tick"[^>]*>([^<]*)</text>`).FindAllSubmatch(m, -1) {
		v, err := strconv.ParseFloat(string(tick[1]), 64)
		if err != nil {
			t.Fatalf("tick %q is no number", tick[1])
		}
		ticks = append(ticks, v)
	}
	if !slices.Equal(ticks, []float64{5, 20, 60, 100}) {
		t.Errorf("fusion.k ticks %v, want 5 20 60 100 left to right", ticks)
	}
	if !strings.Contains(string(m), "<title>baseline: fusion.k = 60 (default)") {
		t.Errorf("the baseline is not drawn at its default k 60")
	}
}

// mapsEqualJSON compares two maps as JSON encodes them.
func mapsEqualJSON(a, b map[string]any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
