package sweeptest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/replay"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/cmd/tune/internal/sweeptest"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
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

// TestPoolOfRecordedSweep: the pool of a recorded demo sweep (what tune
// judge pool writes) holds the unjudged pairs of the chosen trials, best
// priority first, with its statistics (on stdout with a file, on stderr
// without); the retrievers' own lists add pairs; pairs the store has
// labels for (judged with the file judge) are not pooled again; trials
// that are not there are input errors.
func TestPoolOfRecordedSweep(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for name, text := range map[string]string{"tune.yaml": "runs_dir: runs\neval:\n  concurrency: 4\ndataset:\n  split: all\n", "grid.json": judgeGrid} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := sweeptest.Sweep(t, "tune.yaml", "grid.json", sweeptest.Options{Mode: "replay"}).Run
	run.Derive = replay.NewDeriver()
	var s settings.Settings
	if err := settings.Load(&s, &s, "tune.yaml", nil, nil); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	poolOf := func(o judging.PoolOptions) *pool.Pool {
		t.Helper()
		o.Depth = pool.DefaultDepth
		p, err := judging.Pool(ctx, run, s.JudgeStoreURL(), o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(p *pool.Pool, out string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := judging.WritePool(p, out, "text", &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String()
	}
	stdout, _ := write(poolOf(judging.PoolOptions{Trials: "top:3"}), "pool.jsonl")
	m := poolStats.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("statistics:\n%s", stdout)
	}
	pairs := readPool(t, "pool.jsonl")
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
	// Without a file the pool goes to stdout, the statistics to stderr;
	// the same run gives the same bytes.
	again, stats := write(poolOf(judging.PoolOptions{Trials: "top:3"}), "")
	if data, _ := os.ReadFile("pool.jsonl"); again != string(data) || !poolStats.MatchString(stats) {
		t.Errorf("stdout pool differs from the file's, or stats not on stderr:\n%s", stats)
	}
	if wide, _ := write(poolOf(judging.PoolOptions{Trials: "top:3", Retrievers: true}), ""); strings.Count(wide, "\n") <= len(pairs) {
		t.Errorf("with the retrievers: %d pairs, without %d", strings.Count(wide, "\n"), len(pairs))
	}

	// Label the first 10 pairs through a qrels file and the file judge:
	// the next pool leaves them out.
	var qrels strings.Builder
	for _, p := range pairs[:10] {
		fmt.Fprintf(&qrels, "%s 0 %s 1\n", p.Query, p.Doc)
	}
	if err := os.WriteFile("some.qrels", []byte(qrels.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := s.JudgeEnv(runs.NewRedactor(), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judging.Run(ctx, e, judging.RunRequest{Pool: "pool.jsonl", Judge: "file:some.qrels", Log: &bytes.Buffer{}}); err != nil {
		t.Fatalf("judge run: %v", err)
	}
	after, _ := write(poolOf(judging.PoolOptions{Trials: "top:3"}), "")
	if n := strings.Count(after, "\n"); n != len(pairs)-10 {
		t.Errorf("after labelling 10 pairs: %d pairs, want %d", n, len(pairs)-10)
	}
	if strings.Contains(after, fmt.Sprintf(`"query":%q,"doc":%q`, pairs[0].Query, pairs[0].Doc)) {
		t.Errorf("a labelled pair is pooled again")
	}

	for _, tc := range []struct{ trials, want string }{
		{"top:0", `--trials "top:0": want top:N with N >= 1`},
		{"nosuch,baseline", `--trials: no trial "nosuch" in the run`},
	} {
		_, err := judging.Pool(ctx, run, s.JudgeStoreURL(), judging.PoolOptions{Depth: pool.DefaultDepth, Trials: tc.trials})
		var ie *inputerr.Error
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--trials %s: err = %v; want an input error containing %q", tc.trials, err, tc.want)
		}
	}
}
