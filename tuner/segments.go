package tuner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// RunGolden reads the golden-set snapshot a run keeps (golden.json or
// golden.yaml, the native format); a run whose golden set was several
// files keeps none (an error).
func RunGolden(run *runs.Run) (*experiments.GoldenSet, error) {
	for _, name := range []string{"golden.json", "golden.yaml", "golden.yml"} {
		path := filepath.Join(run.Dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return experiments.ParseGoldenSet(path, data)
	}
	return nil, fmt.Errorf("run %s keeps no golden-set snapshot of one native file: its queries' attributes are unknown", run.ID())
}

// SegmentsOf returns the segment under by of every query of run's
// golden-set snapshot (RunGolden), by query id.
func SegmentsOf(run *runs.Run, by string) (map[string]string, error) {
	if err := experiments.CheckSegmentation(by); err != nil {
		return nil, err
	}
	gs, err := RunGolden(run)
	if err != nil {
		return nil, err
	}
	of := make(map[string]string, len(gs.Queries))
	for _, q := range gs.Queries {
		of[q.ID] = q.Segment(by)
	}
	return of, nil
}

// SegmentBoard is run's leaderboard pivoted by any query attribute
// (experiments.CheckSegmentation: language, category, difficulty or
// meta.KEY): each successful trial's mean primary score per segment over
// its judged queries that did not fail, from its per-query results
// (derived again for replayed trials) and the run's golden-set snapshot.
func SegmentBoard(run *runs.Run, by string) (runs.ByGroup, runs.Leaderboard, error) {
	if err := experiments.CheckSegmentation(by); err != nil {
		return runs.ByGroup{}, runs.Leaderboard{}, err
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		return runs.ByGroup{}, lb, err
	}
	of, err := SegmentsOf(run, by)
	if err != nil {
		return runs.ByGroup{}, lb, fmt.Errorf("--by %s: %w", by, err)
	}
	replay.EnsureDeriver(run)
	t := runs.ByGroup{Primary: lb.Primary, By: by, Trials: make([]runs.GroupEntry, 0, len(lb.Trials))}
	seen := map[string]bool{}
	for _, e := range lb.Trials {
		g := runs.GroupEntry{Rank: e.Rank, Name: e.Name, Status: e.Status, Primary: e.Primary, Groups: map[string]float64{}}
		if e.Status == runs.StatusOK {
			results, err := run.QueryScores(e.Index)
			if err != nil {
				return runs.ByGroup{}, lb, err
			}
			for _, row := range runs.NewSegments(by, of, results, nil).Rows {
				g.Groups[row.Segment] = row.Primary
				seen[row.Segment] = true
			}
		}
		t.Trials = append(t.Trials, g)
	}
	t.Groups = slices.Sorted(maps.Keys(seen))
	return t, lb, nil
}

// WriteQueryLines writes a line per query of trial e of run on w
// (runs.VerboseLine), the query texts from queries, under a heading
// naming the trial.
func WriteQueryLines(w io.Writer, run *runs.Run, e runs.Entry, queries []scoring.Query) error {
	replay.EnsureDeriver(run)
	results, err := run.QueryResults(e.Index)
	if err != nil {
		return err
	}
	queryLines(w, e.Name, results, queries)
	return nil
}

// queryLines writes the per-query lines of trial's results (see
// WriteQueryLines).
func queryLines(w io.Writer, trial string, results []runs.QueryResult, queries []scoring.Query) {
	text := make(map[string]string, len(queries))
	for _, q := range queries {
		text[q.ID] = q.Text
	}
	fmt.Fprintf(w, "per query, trial %s (first relevant: rank of the first result of grade 1 or above; then the grades of the top %d, - unjudged):\n", trial, runs.LabelDepth)
	for _, r := range results {
		fmt.Fprintln(w, runs.VerboseLine(r, text[r.QueryID]))
	}
}
