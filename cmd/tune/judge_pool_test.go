package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type poolLine struct {
	Dataset  string  `json:"dataset"`
	Query    string  `json:"query"`
	Doc      string  `json:"doc"`
	Priority float64 `json:"priority"`
	Trials   int     `json:"trials"`
	BestRank int     `json:"best_rank"`
}

func readPool(t *testing.T, path string) []poolLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []poolLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var p poolLine
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		out = append(out, p)
	}
	return out
}

var poolStats = regexp.MustCompile(`^pool: (\d+) unjudged pairs over 90 queries from (\d+) sources \(top 10\)
pairs per query: min \d+, median [\d.]+, max \d+
Judged@10: (0\.\d{4}) now, (\d\.\d{4}) if all were judged
$`)

// TestJudgePool: tune judge pool on a recorded demo sweep writes the
// unjudged pairs of the chosen trials, best priority first, with its
// statistics; --retrievers adds the retrievers' own lists; pairs the store
// has labels for (tune judge run --judge file:...) are not pooled again;
// bad flags are usage errors.
func TestJudgePool(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	exp := e.write("grid.json", judgeGrid)
	dir, _, _ := e.newRun(t, "--experiments", exp, "--mode", "replay", "--split", "all")
	run := filepath.Base(dir)

	stdout, stderr, code := e.run("judge", "pool", run, "--trials", "top:3", "--out", "pool.jsonl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := poolStats.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("statistics:\n%s", stdout)
	}
	pairs := readPool(t, filepath.Join(e.dir, "pool.jsonl"))
	if fmt.Sprint(len(pairs)) != m[1] || m[2] != "3" || m[4] != "1.0000" {
		t.Errorf("%d pairs in the file; statistics %q", len(pairs), m[0])
	}
	for i, p := range pairs {
		if p.Dataset != "demo" || p.Trials < 1 || p.Trials > 3 || p.BestRank < 1 || p.BestRank > 10 || p.Priority <= 0 {
			t.Errorf("pair %d: %+v", i, p)
		}
		if i > 0 && p.Priority > pairs[i-1].Priority {
			t.Errorf("pair %d: priority %v after %v: not ordered", i, p.Priority, pairs[i-1].Priority)
		}
	}
	// Without --out the pool goes to stdout, the statistics to stderr;
	// the same run gives the same bytes.
	again, stats, code := e.run("judge", "pool", run, "--trials", "top:3")
	if data, _ := os.ReadFile(filepath.Join(e.dir, "pool.jsonl")); code != 0 || again != string(data) || !poolStats.MatchString(stats) {
		t.Errorf("stdout pool differs from --out's, or stats not on stderr (exit %d):\n%s", code, stats)
	}
	wide, _, _ := e.run("judge", "pool", run, "--trials", "top:3", "--retrievers")
	if n := strings.Count(wide, "\n"); n <= len(pairs) {
		t.Errorf("--retrievers: %d pairs, without %d", n, len(pairs))
	}

	// Label the first 10 pairs through a qrels file and the file judge:
	// the next pool leaves them out.
	var qrels strings.Builder
	for _, p := range pairs[:10] {
		fmt.Fprintf(&qrels, "%s 0 %s 1\n", p.Query, p.Doc)
	}
	e.write("some.qrels", qrels.String())
	if _, stderr, code := e.run("judge", "run", "--pool", "pool.jsonl", "--judge", "file:some.qrels"); code != 0 {
		t.Fatalf("judge run: exit %d\n%s", code, stderr)
	}
	after, _, _ := e.run("judge", "pool", run, "--trials", "top:3")
	if n := strings.Count(after, "\n"); n != len(pairs)-10 {
		t.Errorf("after labelling 10 pairs: %d pairs, want %d", n, len(pairs)-10)
	}
	if strings.Contains(after, fmt.Sprintf(`"query":%q,"doc":%q`, pairs[0].Query, pairs[0].Doc)) {
		t.Errorf("a labelled pair is pooled again")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--depth", "0"}, "--depth: want an integer in [1, 1000] (got 0)"},
		{[]string{"--trials", "top:0"}, `--trials "top:0": want top:N with N >= 1`},
		{[]string{"--trials", "nosuch,baseline"}, `--trials: no trial "nosuch" in the run`},
		{[]string{"--format", "xml"}, `--format: want text or json (got "xml")`},
	} {
		_, stderr, code := e.run(append([]string{"judge", "pool", run}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
