package judging

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
	"github.com/fusiontune/fusiontune/tuner/replay"
	"github.com/fusiontune/fusiontune/tuner/scoring"
)

// DefaultPoolTrials is the trials a pool takes by default: the leaderboard's
// best five.
const DefaultPoolTrials = "top:5"

// PoolOptions says what PoolRun pools.
type PoolOptions struct {
	// Depth is the ranks of each ranking taken, 1..pool.MaxDepth
	// (pool.DefaultDepth when 0). The runs record each trial's top
	// TopRecorded; deeper, a replayed trial's candidate lists are fused
	// again to Depth (replay.Results.Ranked), a live trial gives its
	// recorded top.
	Depth int
	// Trials chooses the trials: "top:N" (the leaderboard's best N
	// successful trials with results of their own), "all", or trial names
	// separated by commas; DefaultPoolTrials when "".
	Trials string
	// Retrievers adds each retriever's own candidate list (from the
	// collection of candidate lists the chosen trials' index groups were
	// replayed from; none for a group run only live) as sources named
	// "retriever:NAME".
	Retrievers bool
	// Dataset is the pairs' dataset id; RunDatasetID(run) when "".
	Dataset string
	// Labels are judgments beyond the run's own (query -> doc -> grade, a
	// label store's): pairs they judge are not pooled.
	Labels map[string]map[string]int
	// Leaderboard orders the trials for top:N; the run's leaderboard.json
	// when nil.
	Leaderboard *runs.Leaderboard
}

// PoolRun builds the judging pool of run: the unjudged pairs in the top
// Depth of the chosen trials' recorded results (and of the retrievers'
// lists with Retrievers), ordered as package pool orders them. A pair is
// judged when the run's judgments or o.Labels grade it.
func PoolRun(run *runs.Run, o PoolOptions) (*pool.Pool, error) {
	if o.Depth == 0 {
		o.Depth = pool.DefaultDepth
	}
	if o.Depth < 1 || o.Depth > pool.MaxDepth {
		return nil, inputerr.Wrap(fmt.Errorf("--depth must be in 1..%d (got %d)", pool.MaxDepth, o.Depth))
	}
	if o.Dataset == "" {
		o.Dataset = dataset.RunDatasetID(run)
	}
	lb := o.Leaderboard
	if lb == nil {
		l, err := run.ReadLeaderboard()
		if err != nil {
			return nil, err
		}
		lb = &l
	}
	chosen, err := SelectTrials(*lb, o.Trials)
	if err != nil {
		return nil, inputerr.Wrap(err)
	}
	replay.EnsureDeriver(run)
	judged := judgedPairs{}
	judged.add(o.Labels)
	var rankings []pool.Ranking
	for _, e := range chosen {
		rs, err := trialRankings(run, e, judged, o.Depth)
		if err != nil {
			return nil, err
		}
		rankings = append(rankings, rs...)
	}
	if o.Retrievers {
		names, err := chosenCollections(run, chosen)
		if err != nil {
			return nil, err
		}
		for _, c := range names {
			rs, err := retrieverRankings(run, c, judged)
			if err != nil {
				return nil, err
			}
			rankings = append(rankings, rs...)
		}
	}
	return pool.Build(o.Dataset, rankings, judged.has, o.Depth)
}

// trialRankings is trial e's recorded top results, one ranking per query
// that succeeded (to depth, fused again from the candidate lists of a
// replayed trial when depth is beyond the recorded top); the documents
// they grade join judged.
func trialRankings(run *runs.Run, e runs.Entry, judged judgedPairs, depth int) ([]pool.Ranking, error) {
	results, err := run.QueryResults(e.Index)
	if err != nil {
		return nil, fmt.Errorf("pool: trial %q: %w", e.Name, err)
	}
	var deeper map[string][]string
	if depth > scoring.TopRecorded {
		t, err := run.Trial(e.Index)
		if err != nil {
			return nil, fmt.Errorf("pool: trial %q: %w", e.Name, err)
		}
		if t.Replay != nil || t.Replayed != nil {
			var gold map[string]map[string]int
			if deeper, gold, err = replay.Of(run).Ranked(t, depth); err != nil {
				return nil, fmt.Errorf("pool: trial %q: %w", e.Name, err)
			}
			judged.add(gold)
		}
	}
	var out []pool.Ranking
	for _, r := range results {
		if r.Error != "" {
			continue
		}
		docs := make([]string, len(r.Top))
		for i, d := range r.Top {
			docs[i] = d.DocID
			if d.Grade >= 0 {
				judged.set(r.QueryID, d.DocID)
			}
		}
		if d, ok := deeper[r.QueryID]; ok {
			docs = d
		}
		out = append(out, pool.Ranking{Source: e.Name, Query: r.QueryID, Docs: docs})
	}
	return out, nil
}

// chosenCollections names, sorted, the collections of candidate lists of
// the chosen trials' index groups. A trial verified live keeps no
// collection reference; its index group's replayed trials name the
// collection.
func chosenCollections(run *runs.Run, chosen []runs.Entry) ([]string, error) {
	all, err := run.Trials()
	if err != nil {
		return nil, err
	}
	groupOf, groupCollections := map[int]string{}, map[string]string{}
	for _, t := range all {
		groupOf[t.Index] = t.Group
		if t.Replay != nil && groupCollections[t.Group] == "" {
			groupCollections[t.Group] = t.Replay.Collection
		}
	}
	collections := map[string]bool{}
	for _, e := range chosen {
		if c := groupCollections[groupOf[e.Index]]; c != "" {
			collections[c] = true
		}
	}
	names := make([]string, 0, len(collections))
	for c := range collections {
		names = append(names, c)
	}
	sort.Strings(names)
	return names, nil
}

// judgedPairs is the set of judged (query, document) pairs.
type judgedPairs map[string]map[string]bool

func (j judgedPairs) set(q, d string) {
	if j[q] == nil {
		j[q] = map[string]bool{}
	}
	j[q][d] = true
}

func (j judgedPairs) add(labels map[string]map[string]int) {
	for q, docs := range labels {
		for d := range docs {
			j.set(q, d)
		}
	}
}

func (j judgedPairs) has(q, d string) bool { return j[q][d] }

// retrieverRankings reads the candidate lists of the collection file name
// (trials/NAME): one ranking per query and retriever, best first, its
// judgments added to judged.
func retrieverRankings(run *runs.Run, name string, judged judgedPairs) ([]pool.Ranking, error) {
	var out []pool.Ranking
	_, _, err := replay.Read(run, name, "pool", nil, func(l replay.Line) error {
		for d := range l.Judgments {
			judged.set(l.ID, d)
		}
		retrievers := make([]string, 0, len(l.Candidates))
		for r := range l.Candidates {
			retrievers = append(retrievers, r)
		}
		sort.Strings(retrievers)
		for _, r := range retrievers {
			cands := slices.Clone(l.Candidates[r])
			sort.SliceStable(cands, func(a, b int) bool { return cands[a].Rank < cands[b].Rank })
			docs := make([]string, len(cands))
			for i, c := range cands {
				docs[i] = c.DocID
			}
			out = append(out, pool.Ranking{Source: "retriever:" + r, Query: l.ID, Docs: docs})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SelectTrials returns the successful trials spec chooses from lb, in
// leaderboard order: "top:N" (N >= 1) the best N, "all" every one (both
// leave out a trial that repeats another's results, SameAs), or names
// separated by commas (each must name a successful trial; "" is
// DefaultPoolTrials).
func SelectTrials(lb runs.Leaderboard, spec string) ([]runs.Entry, error) {
	if spec == "" {
		spec = DefaultPoolTrials
	}
	var ok []runs.Entry
	for _, e := range lb.Trials {
		if e.Status == runs.StatusOK && e.SameAs == "" {
			ok = append(ok, e)
		}
	}
	if n, found := strings.CutPrefix(spec, "top:"); found {
		k, err := strconv.Atoi(n)
		if err != nil || k < 1 {
			return nil, fmt.Errorf("--trials %q: want top:N with N >= 1, all, or trial names separated by commas", spec)
		}
		return ok[:min(k, len(ok))], nil
	}
	if spec == "all" {
		return ok, nil
	}
	var out []runs.Entry
	var errs []error
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		e, err := lb.Find(name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("--trials: no trial %q in the run", name))
		case e.Status != runs.StatusOK:
			errs = append(errs, fmt.Errorf("--trials: trial %q did not succeed (%s)", name, e.Status))
		default:
			out = append(out, e)
		}
	}
	return out, errors.Join(errs...)
}
