package tuner

import (
	"context"
	"errors"
	"fmt"

	"github.com/fusiontune/fusiontune/experiments"
)

// maxCollections bounds the collections a study keeps in memory (each
// holds every query's candidate lists): a replay group whose collection
// was dropped collects again when the sampler returns to it. A variable
// for the tests.
var maxCollections = 8

// searchReplay is the replay state of a sampler study: the replay groups
// seen so far (growing as the sampler proposes) and the collections of
// the most recently used ones.
type searchReplay struct {
	o  Options
	ro ReplayOptions
	// depth is the deepest candidate depth any trial may ask for (the
	// experiment file's trials and the space's corners): each group
	// collects at it, so that no later trial needs a deeper collection.
	depth  int
	groups []*studyGroup // in order of first appearance
	byKey  map[string]*studyGroup
	held   []*studyGroup // groups holding a collection, least recently used first
	// live is set when auto mode found the backend returns no candidate
	// lists: the remaining trials run live.
	live bool
	// derived reads the replayed trials' per-query results; it is handed
	// the held collections, so that reading them needs no file.
	derived *Results
}

// studyGroup is one replay group of a study: its trials so far and its
// collection, if held.
type studyGroup struct {
	trials []experiments.TrialSpec
	// on is the trial whose configuration the lists were last collected
	// on (nil: none in this process, a resumed run's group).
	on  *experiments.TrialSpec
	col *collection
}

// replaying reports whether o asks for replay (mode replay or auto).
func replaying(o Options) bool {
	return o.Replay != nil && o.Replay.Mode != ModeLive && o.Replay.Mode != ""
}

// newSearchReplay prepares a study's replay; fixed are the experiment
// file's own trials, corners the space's edges.
func newSearchReplay(o Options, fixed, corners []experiments.TrialSpec) (*searchReplay, error) {
	ro := o.Replay.withDefaults()
	if ro.Resolve == nil {
		return nil, errors.New("replay: no Resolve function for the backend's fusion settings")
	}
	sr := &searchReplay{o: o, ro: ro, byKey: map[string]*studyGroup{}, derived: NewResults(o.Run)}
	for _, spec := range append(append([]experiments.TrialSpec{}, fixed...), corners...) {
		if s, err := ro.Resolve(spec.Params); err == nil {
			sr.depth = max(sr.depth, s.Fusion.Depth)
		}
	}
	return sr, nil
}

// join resolves a trial's settings and adds it to its replay group (nil
// when its settings cannot be resolved: it is then replayed as failed).
// Recorded trials of a resumed run join too, so that verify knows a
// configuration their group's lists are collected on.
func (sr *searchReplay) join(spec experiments.TrialSpec) (*studyGroup, FusionSettings, error) {
	s, err := sr.ro.Resolve(spec.Params)
	if err != nil {
		return nil, s, err
	}
	key := replayKey(spec.Params)
	sg := sr.byKey[key]
	if sg == nil {
		sg = &studyGroup{}
		sr.byKey[key] = sg
		sr.groups = append(sr.groups, sg)
	}
	sg.trials = append(sg.trials, spec)
	return sg, s, nil
}

// verifyGroups are the groups as verify reads them: each led by the
// configuration its lists were last collected on, which the backend runs
// when verification starts, so that a per-request override needs no
// restart.
func (sr *searchReplay) verifyGroups() []*replayGroup {
	out := make([]*replayGroup, len(sr.groups))
	for k, sg := range sr.groups {
		on := sg.trials[0]
		if sg.on != nil {
			on = *sg.on
		}
		out[k] = &replayGroup{specs: append([]experiments.TrialSpec{on}, sg.trials...)}
	}
	return out
}

// trial replays trial i (resolved to s, or why not in serr) from its
// group's collection, collecting it first when the group holds none (or
// one too shallow for s). replayed is false when the trial must run live
// instead: auto mode on a backend without candidate lists. A failed
// collection fails the trial, as it would have failed live. The error is
// the context's, or ErrNoCandidates in replay mode.
func (sr *searchReplay) trial(ctx context.Context, sg *studyGroup, i int, spec experiments.TrialSpec, s FusionSettings, serr error) (out trialOutcome, restarts int, replayed bool, err error) {
	if serr != nil {
		return replayTrial(sr.o, nil, nil, i, spec, s, serr), 0, true, nil
	}
	if sg.col == nil || sg.col.depth < s.Fusion.Depth {
		depth := max(sr.depth, s.Fusion.Depth)
		col, restarted, err := collectAt(ctx, sr.o, sr.ro, spec.Params, s, depth, i, fmt.Sprintf("the trials like %q", spec.Name))
		restarts = b2i(restarted)
		switch {
		case err != nil && ctx.Err() != nil:
			return out, restarts, false, ctx.Err()
		case errors.Is(err, ErrNoCandidates) && sr.ro.Mode == ModeAuto:
			fmt.Fprintf(sr.ro.Log, "replay: %v; the study's remaining trials run live\n", err)
			sr.live = true
			return out, restarts, false, nil
		case errors.Is(err, ErrNoCandidates):
			return out, restarts, false, err
		case err != nil:
			return replayTrial(sr.o, nil, err, i, spec, s, nil), restarts, true, nil
		}
		sr.hold(sg, col)
		sg.on = &spec
	}
	sr.touch(sg)
	return replayTrial(sr.o, sg.col, nil, i, spec, s, nil), restarts, true, nil
}

// hold keeps col as sg's collection, dropping the least recently used
// group's beyond maxCollections.
func (sr *searchReplay) hold(sg *studyGroup, col *collection) {
	if sg.col == nil {
		sr.held = append(sr.held, sg)
	}
	if sg.col != nil && sg.col.file != "" {
		sr.derived.drop(sg.col.file)
	}
	sg.col = col
	if col.file != "" {
		sr.derived.keep(col)
	}
	if len(sr.held) > maxCollections {
		if old := sr.held[0].col; old.file != "" {
			sr.derived.drop(old.file)
		}
		sr.held[0].col = nil
		sr.held = sr.held[1:]
	}
}

// touch marks sg's collection as the most recently used.
func (sr *searchReplay) touch(sg *studyGroup) {
	for k, h := range sr.held {
		if h == sg {
			sr.held = append(append(sr.held[:k:k], sr.held[k+1:]...), sg)
			return
		}
	}
}
