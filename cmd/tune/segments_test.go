package main_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// TestLeaderboardBySegment replays the demo shortlist (--verbose: a line
// per query of the best trial on stderr) and pivots its
// leaderboard by segments computed from the per-query results (derived
// again for the replayed trials) and the run's golden-set snapshot: by
// language (every demo query is English: each trial's "en" is its
// primary), by difficulty (equal to the pivot of the recorded
// per-difficulty scorecards) and by a metadata key no query has (one
// "(none)" segment); an unknown --by is a usage error.
func TestLeaderboardBySegment(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	_, sweepErr := e.mustRun(0, "--experiments", absPath(t, "../../experiments/shortlist.json"), "--mode", "replay", "--verbose")
	line := regexp.MustCompile(`(?m)^q\d+  ".*"  first relevant (\d+|-)  [0-3-]( [0-3-])*$`)
	if n := len(line.FindAllString(sweepErr, -1)); n != 90 || !strings.Contains(sweepErr, "per query, trial ") {
		t.Errorf("sweep --verbose: %d per-query lines, want the 90 of the demo; stderr:\n%s", n, sweepErr)
	}

	stdout, _ := e.mustRun(0, "leaderboard", "--by", "language", "--format", "json")
	var byLang runs.ByGroup
	if err := json.Unmarshal([]byte(stdout), &byLang); err != nil {
		t.Fatalf("--by language --format json: %v\n%s", err, stdout)
	}
	if len(byLang.Groups) != 1 || byLang.Groups[0] != "en" || len(byLang.Trials) < 2 {
		t.Fatalf("--by language: groups %v over %d trials, want [en]", byLang.Groups, len(byLang.Trials))
	}
	for _, tr := range byLang.Trials {
		if tr.Status == runs.StatusOK && math.Abs(tr.Groups["en"]-tr.Primary) > 1e-9 {
			t.Errorf("trial %s: en %v, primary %v", tr.Name, tr.Groups["en"], tr.Primary)
		}
	}

	store, err := runs.Open(filepath.Join(e.dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := store.Resolve("latest")
	if err != nil {
		t.Fatal(err)
	}
	got, lb, err := tuner.SegmentBoard(run, "difficulty")
	if err != nil {
		t.Fatal(err)
	}
	want, err := lb.By("difficulty")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Groups, ",") != strings.Join(want.Groups, ",") || len(got.Groups) != 3 {
		t.Fatalf("difficulty segments %v, recorded %v", got.Groups, want.Groups)
	}
	for i, tr := range got.Trials {
		for g, v := range want.Trials[i].Groups {
			if math.Abs(tr.Groups[g]-v) > 1e-9 {
				t.Errorf("trial %s, %s: %v from the per-query results, %v recorded", tr.Name, g, tr.Groups[g], v)
			}
		}
	}

	// compare --by: the segments' deltas, weighted by their queries, add
	// up to the paired primary delta over every query.
	stdout, _ = e.mustRun(0, "compare", "latest:baseline", "latest", "--by", "difficulty", "--format", "json")
	var c runs.TrialComparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatalf("compare --by --format json: %v\n%s", err, stdout)
	}
	if c.Segments == nil || len(c.Segments.Rows) != 3 {
		t.Fatalf("compare --by difficulty: segments %+v", c.Segments)
	}
	sum, n := 0.0, 0
	for _, r := range c.Segments.Rows {
		if r.Delta == nil {
			t.Fatalf("segment %s has no delta", r.Segment)
		}
		sum += *r.Delta * float64(r.Queries)
		n += r.Queries
	}
	if d := c.Paired[0].Delta; n != c.Paired[0].N || math.Abs(sum/float64(n)-d) > 1e-9 {
		t.Errorf("segments: mean delta %v over %d queries, paired primary delta %v over %d", sum/float64(n), n, d, c.Paired[0].N)
	}
	stdout, _ = e.mustRun(0, "compare", "latest:baseline", "latest", "--by", "language")
	if !strings.Contains(stdout, "By language (B; Δ: B - A)") {
		t.Errorf("compare --by language:\n%s", stdout)
	}

	// report --by: a section with a row per difficulty.
	page, _ := e.mustRun(0, "report", "--by", "difficulty", "--out", "-")
	sec := regexp.MustCompile(`(?s)<section id="segments">.*?</section>`).FindString(page)
	if !strings.Contains(sec, "<h2>Per difficulty (best trial)</h2>") || strings.Count(sec, "<tr><td>") != 3 {
		t.Errorf("report --by difficulty: segments section\n%s", sec)
	}

	stdout, _ = e.mustRun(0, "leaderboard", "--by", "meta.team")
	if !strings.Contains(stdout, "(none)") || !strings.Contains(stdout, "primary per meta.team") {
		t.Errorf("--by meta.team:\n%s", stdout)
	}
	_, stderr := e.mustRun(2, "leaderboard", "--by", "lang")
	if !strings.Contains(stderr, `--by: unknown segmentation "lang"`) {
		t.Errorf("--by lang: stderr\n%s", stderr)
	}
}

// TestSweepFilter replays the demo shortlist on its paraphrase queries
// only (--category): every trial scores those 22 queries and the
// leaderboard, printed and recorded, names the filter; a language no query
// has is an input error before any run starts.
func TestSweepFilter(t *testing.T) {
	e := newSweepEnv(t, sweepSettings)
	shortlist := absPath(t, "../../experiments/shortlist.json")
	stdout, _ := e.mustRun(0, "--experiments", shortlist, "--mode", "replay", "--category", "paraphrase", "--lang", "all", "--format", "json")
	var lb runs.Leaderboard
	if err := json.Unmarshal([]byte(stdout), &lb); err != nil {
		t.Fatalf("sweep --format json: %v\n%s", err, stdout)
	}
	if !slices.Contains(lb.Warnings, runs.FilterNote("category=paraphrase")) {
		t.Errorf("leaderboard warnings %q lack the filter's note", lb.Warnings)
	}
	for _, tr := range lb.Trials {
		if tr.Status == runs.StatusOK && (tr.Queries != 22 || len(tr.Categories) != 1 || tr.Categories["paraphrase"] == nil) {
			t.Errorf("trial %s: %d queries, categories %v; want the 22 paraphrase queries", tr.Name, tr.Queries, tr.Categories)
		}
	}
	_, stderr := e.mustRun(2, "--experiments", shortlist, "--lang", "hi")
	if !strings.Contains(stderr, "--category/--lang: no query of the golden set has language=hi") {
		t.Errorf("--lang hi: stderr\n%s", stderr)
	}
	if dirs := e.runDirs(); len(dirs) != 1 {
		t.Errorf("%d run directories, want the one of the filtered sweep", len(dirs))
	}
}
