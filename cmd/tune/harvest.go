package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/experiments/harvest"
	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/internal/atomicfile"
	"github.com/fusiontune/fusiontune/internal/querylog"
	"github.com/fusiontune/fusiontune/tuner"
)

const harvestUsage = `--out golden.json [--sample random|top|pps] [--n 200] [--seed 1] [--stratify] [--update] [--implicit] LOG...

Builds a golden-set skeleton from query logs (tune serve's log, or any
system's in the same JSON-lines format): logged searches grouped by
normalised text, ids stable across re-harvests (h-<sha256 prefix>), a
sample of them written as a native golden set whose queries await
judgments. --implicit grades them from the log's clicks (COEC click model)
into the label store as source implicit, which never overrides gold, human,
file or llm labels. A LOG with rotated files (LOG.1, LOG.2, ...) is read
oldest first.`

func runHarvest(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet("harvest", harvestUsage, a.stderr)
	out := fs.String("out", "", "golden set to write (native JSON); refused when it exists, unless --update")
	method := fs.String("sample", harvest.SampleRandom, "sampling: random, top (most frequent) or pps (probability proportional to frequency)")
	n := fs.Int("n", 200, fmt.Sprintf("queries to sample, in [1, %d]", harvest.MaxN))
	seed := fs.Int64("seed", 1, "seed of the random and pps samples")
	stratify := fs.Bool("stratify", false, "sample each logged category in proportion to its distinct queries")
	update := fs.Bool("update", false, "add the new queries to an existing --out, keeping every query it has")
	skipBad := fs.Bool("skip-bad-lines", false, "skip (and count) malformed log lines instead of failing on the first")
	implicit := fs.Bool("implicit", false, "grade the golden set's queries from clicks into the label store (source implicit)")
	minExpected := fs.Float64("min-expected", harvest.DefaultMinExpected, fmt.Sprintf("expected clicks a pair needs before it is graded, in (0, %g]", harvest.MaxMinExpected))
	dataset := fs.String("dataset", "", "dataset id of the implicit labels (default: --out's file name without extension)")
	config := fs.String("config", "", "settings file (default ./tune.yaml when present): its labels store")
	fs.String("labels", "", "label store URL: a SQLite file or postgres://USER@HOST:PORT/DB (setting labels)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return usageErrorf("harvest: --out is required")
	case fs.NArg() == 0:
		return usageErrorf("harvest: want one or more query logs")
	case *minExpected <= 0 || *minExpected > harvest.MaxMinExpected:
		return usageErrorf("harvest: --min-expected: want a number in (0, %g] (got %v)", harvest.MaxMinExpected, *minExpected)
	}
	opt := harvest.Options{Method: *method, N: *n, Seed: *seed, Stratify: *stratify}
	if p := opt.Validate(); len(p) > 0 {
		return usageErrorf("harvest: --%s", p[0])
	}
	s, err := loadSettings(*config, fs, map[string]string{"labels": "labels"})
	if err != nil {
		return err
	}
	scale := experiments.DefaultScale()
	r, err := harvest.Run(harvest.Config{Logs: fs.Args(), Read: querylog.ReadOptions{SkipBad: *skipBad}, Sample: opt,
		Out: *out, Update: *update, Implicit: *implicit,
		Clicks: harvest.ClickOptions{MinExpected: *minExpected, Relevant: scale.Relevant, Strong: scale.Strong, Exact: scale.Exact}})
	if err != nil {
		return inputError(err)
	}
	for _, b := range r.Log.Bad {
		fmt.Fprintln(a.stderr, "skipped:", b)
	}
	if err := atomicfile.Write(*out, r.Golden, 0o644); err != nil {
		return fmt.Errorf("harvest: %w", err)
	}
	fmt.Fprintf(a.stdout, "harvest: %d searches, %d feedback events from %d files (%d bad lines skipped); %d distinct queries\n",
		len(r.Log.Searches), len(r.Log.Feedback), len(r.Log.Files), r.Log.Skipped, r.Distinct)
	fmt.Fprintf(a.stdout, "harvest: added %d queries (sample %s, n %d, seed %d) to %s\n", r.Added, *method, *n, *seed, *out)
	if !*implicit {
		return nil
	}
	id := *dataset
	if id == "" {
		id = tuner.DatasetIDOf(*out)
	}
	url := s.LabelsURL()
	a.addURLSecret(url)
	st, err := labels.Open(ctx, url)
	if err != nil {
		return inputError(fmt.Errorf("harvest: labels: %w", err))
	}
	defer st.Close()
	ls := harvest.Labels(r.Judgments, id, r.LastEvent)
	if err := st.Append(ctx, ls); err != nil {
		return fmt.Errorf("harvest: labels: %w", err)
	}
	byGrade := map[int]int{}
	for _, l := range ls {
		byGrade[l.Grade]++
	}
	grades := make([]int, 0, len(byGrade))
	for g := range byGrade {
		grades = append(grades, g)
	}
	sort.Ints(grades)
	var parts []string
	for _, g := range grades {
		parts = append(parts, fmt.Sprintf("grade %d: %d", g, byGrade[g]))
	}
	where, _ := labels.ParseURL(url)
	fmt.Fprintf(a.stdout, "harvest: %d implicit labels (%s) of dataset %q appended to %s\n", len(ls), strings.Join(parts, ", "), id, where.Redacted)
	return nil
}
