package tuner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/replay"
)

// replayEval replays query-time variants: a trial that differs from an
// earlier one only in query-time parameters (see experiments.Replayable) is fused
// offline from the candidate lists collected for that earlier one, and
// the first trial of each replay group collects them (one live run of the
// golden set with explain, at the deepest depth the group may need). With
// a plan ahead, a collection's trials are replayed together on every core
// as soon as it is collected. After the last trial the best replayed
// trials are verified live (verify). In auto mode a backend without
// candidate lists runs the remaining trials live; in replay mode that is
// ErrNoCandidates.
type replayEval struct {
	o    Options
	ro   ReplayOptions
	live *liveEval
	// known is the deepest depth any known trial of a replay group needs,
	// corner the deepest a sampled trial may ask for: each collection is
	// made at least that deep, so no later trial needs a deeper one.
	known  map[string]int
	corner int
	// ahead are the plan's trials of each replay group not run yet, in
	// order; precomputed holds the outcomes replayed with a collection.
	ahead       map[string][]*trial
	precomputed map[int]trialOutcome
	groups      []*studyGroup // in order of first appearance
	byKey       map[string]*studyGroup
	held        []*studyGroup // groups holding a collection, least recently used first
	// fellBack is set when auto mode found the backend returns no
	// candidate lists: the remaining trials run live.
	fellBack bool
	// results derives the run's replayed trials' per-query results; it is
	// handed the held collections, so that reading them needs no file.
	results *replay.Results
	// stored waits for the last collection's file (nil: none yet).
	stored func() error
}

// studyGroup is one replay group: its trials so far and its collection,
// if held.
type studyGroup struct {
	key    string
	trials []experiments.TrialSpec
	// on is the trial whose configuration the lists were last collected
	// on (nil: none in this process, a resumed run's group).
	on  *experiments.TrialSpec
	col *replay.Collection
}

func newReplayEval(o Options, live *liveEval, known []experiments.TrialSpec, ahead []*trial) (*replayEval, error) {
	ro := o.Replay.withDefaults()
	if ro.Resolve == nil {
		return nil, errors.New("replay: no Resolve function for the backend's fusion settings")
	}
	r := &replayEval{o: o, ro: ro, live: live, known: map[string]int{}, ahead: map[string][]*trial{},
		precomputed: map[int]trialOutcome{}, byKey: map[string]*studyGroup{}, results: replay.Of(o.Run)}
	if live.study != nil {
		for _, spec := range live.study.Options().Corners() {
			if s, err := ro.Resolve(spec.Params); err == nil {
				r.corner = max(r.corner, s.Fusion.Depth)
			}
		}
	}
	for _, spec := range known {
		if s, err := ro.Resolve(spec.Params); err == nil {
			key := replayKey(spec.Params)
			r.known[key] = max(r.known[key], s.Fusion.Depth)
		}
	}
	for _, t := range ahead {
		key := replayKey(t.spec.Params)
		r.ahead[key] = append(r.ahead[key], t)
	}
	return r, nil
}

// resumed joins a resumed run's recorded trial to its group, so that
// verify knows a configuration the group's lists are collected on.
func (r *replayEval) resumed(t *trial) {
	if !r.fellBack {
		_, _, _ = r.join(t.spec)
	}
}

// join resolves a trial's settings and adds it to its replay group (nil
// when its settings cannot be resolved: it is then replayed as failed).
func (r *replayEval) join(spec experiments.TrialSpec) (*studyGroup, fusion.Settings, error) {
	s, err := r.ro.Resolve(spec.Params)
	if err != nil {
		return nil, s, err
	}
	key := replayKey(spec.Params)
	sg := r.byKey[key]
	if sg == nil {
		sg = &studyGroup{key: key}
		r.byKey[key] = sg
		r.groups = append(r.groups, sg)
	}
	sg.trials = append(sg.trials, spec)
	return sg, s, nil
}

func (r *replayEval) eval(ctx context.Context, t *trial) (trialOutcome, int, error) {
	if r.fellBack {
		return r.live.eval(ctx, t)
	}
	if out, ok := r.precomputed[t.index]; ok {
		delete(r.precomputed, t.index)
		return out, 0, nil
	}
	sg, s, serr := r.join(t.spec)
	if errors.Is(serr, backend.ErrNotReplayable) {
		return r.live.eval(ctx, t)
	}
	if serr != nil {
		return r.encoded(replayTrial(r.o, nil, nil, t.index, t.spec, s, serr), true), 0, nil
	}
	restarts := 0
	if sg.col == nil || sg.col.Depth < s.Fusion.Depth {
		batch := r.pendingFrom(sg.key, t)
		settings, errs := r.resolveBatch(batch, s)
		col, restarted, err := r.collect(ctx, t, sg.key, s, batch, settings, errs)
		restarts = b2i(restarted)
		switch {
		case err != nil && ctx.Err() != nil:
			return trialOutcome{}, restarts, ctx.Err()
		case errors.Is(err, ErrNoCandidates) && r.ro.Mode == ModeAuto:
			fmt.Fprintf(r.ro.Log, "replay: %v; the remaining trials run live\n", err)
			r.fellBack = true
			out, more, err := r.live.eval(ctx, t)
			return out, restarts + more, err
		case errors.Is(err, ErrNoCandidates):
			return trialOutcome{}, restarts, err
		case err != nil:
			// Failed as it would have failed live; the group's next trial
			// tries to collect again.
			return r.encoded(replayTrial(r.o, nil, err, t.index, t.spec, s, nil), true), restarts, nil
		}
		r.hold(sg, col)
		sg.on = &t.spec
		if len(batch) > 1 {
			return r.replayAhead(sg, batch, settings, errs), restarts, nil
		}
		col.StartWrite()
	}
	r.touch(sg)
	return r.encoded(replayTrial(r.o, sg.col, nil, t.index, t.spec, s, nil), true), restarts, nil
}

// collect collects the candidate lists of t's replay group, deep enough
// for every trial of batch (its settings and errors as resolveBatch gave
// them) and for the group's known and sampled trials, once the previous
// collection's file is durable (its trials' batch waited for it, unless
// none was recorded), so that the next is named after it.
func (r *replayEval) collect(ctx context.Context, t *trial, key string, s fusion.Settings, batch []*trial, settings []fusion.Settings, errs []error) (*replay.Collection, bool, error) {
	depth := max(r.known[key], r.corner)
	for k := range batch {
		if errs[k] == nil {
			depth = max(depth, settings[k].Fusion.Depth)
		}
	}
	what := fmt.Sprintf("the trials like %q", t.spec.Name)
	if len(batch) > 1 {
		what = fmt.Sprintf("%d trials", len(batch))
	}
	if r.stored != nil {
		if err := r.stored(); err != nil {
			return nil, false, err
		}
	}
	col, restarted, err := collectAt(ctx, r.o, r.ro, t.spec.Params, s, depth, t.index, what)
	if err == nil {
		r.stored = col.Stored
	}
	return col, restarted, err
}

// pendingFrom is t and the plan's later trials of its replay group (just t
// without a plan ahead).
func (r *replayEval) pendingFrom(key string, t *trial) []*trial {
	for k, a := range r.ahead[key] {
		if a == t {
			return r.ahead[key][k:]
		}
	}
	return []*trial{t}
}

// resolveBatch resolves the settings of a collection's trials (the first,
// the one asked for, already resolved to s), saying how long it took when
// there is more than one.
func (r *replayEval) resolveBatch(batch []*trial, s fusion.Settings) ([]fusion.Settings, []error) {
	began, cpu := time.Now(), processCPU()
	settings := make([]fusion.Settings, len(batch))
	errs := make([]error, len(batch))
	settings[0] = s
	for k, b := range batch[1:] {
		settings[k+1], errs[k+1] = r.ro.Resolve(b.spec.Params)
	}
	if len(batch) > 1 {
		fmt.Fprintf(r.ro.Log, "replay: resolved the settings of %d trials in %s (CPU %s)\n",
			len(batch), time.Since(began).Round(time.Microsecond), (processCPU() - cpu).Round(time.Microsecond))
	}
	return settings, errs
}

// replayAhead replays the batch's trials (the first is the one asked
// for, already joined; settings and errs as resolveBatch gave them) on
// every core, keeps the
// others' outcomes for when they are asked for, and returns the first's.
func (r *replayEval) replayAhead(sg *studyGroup, batch []*trial, settings []fusion.Settings, errs []error) trialOutcome {
	for _, b := range batch[1:] {
		sg.trials = append(sg.trials, b.spec)
	}
	began, cpu := time.Now(), processCPU()
	outs := replayAll(r.o, sg.col, batch, settings, errs)
	computed, computedCPU := time.Since(began), processCPU()-cpu
	// The collection's file is written once its trials are replayed (on
	// every core before it), beside what follows: their records wait for it.
	sg.col.StartWrite()
	last := &outs[len(outs)-1]
	last.last = true
	last.durable = func(d time.Duration) {
		fmt.Fprintf(r.ro.Log, "replay: %d trials fused, scored and written in %s (CPU %s), made durable in %s\n",
			len(batch), computed.Round(time.Microsecond), computedCPU.Round(time.Microsecond), d.Round(time.Microsecond))
	}
	for k, b := range batch[1:] {
		r.precomputed[b.index] = outs[k+1]
	}
	delete(r.ahead, sg.key)
	return outs[0]
}

// encoded marks out for the recorder's batch when its per-query results
// are derived from a stored collection; last flushes the batch.
func (r *replayEval) encoded(out trialOutcome, last bool) trialOutcome {
	out.batched, out.last = out.Replay != nil, last
	return out
}

// hold keeps col as sg's collection, dropping the least recently used
// group's beyond ReplayOptions.MaxCollections.
func (r *replayEval) hold(sg *studyGroup, col *replay.Collection) {
	if sg.col == nil {
		r.held = append(r.held, sg)
	}
	if sg.col != nil && sg.col.File != "" {
		r.results.Drop(sg.col.File)
	}
	sg.col = col
	if col.File != "" {
		r.results.Keep(col)
	}
	if len(r.held) > r.ro.MaxCollections {
		if old := r.held[0].col; old.File != "" {
			r.results.Drop(old.File)
		}
		r.held[0].col = nil
		r.held = r.held[1:]
	}
	r.touch(sg)
}

// touch marks sg's collection as the most recently used.
func (r *replayEval) touch(sg *studyGroup) {
	for k, h := range r.held {
		if h == sg {
			r.held = append(append(r.held[:k:k], r.held[k+1:]...), sg)
			return
		}
	}
}

// finish verifies the best replayed trials live, recording them once
// durable says the trials before are; the statistics of the others,
// computed meanwhile beside the backend, then take every core.
func (r *replayEval) finish(ctx context.Context, res *Result, durable func() error) error {
	err := verify(ctx, verifyOptions{Options: r.o, durable: durable}, r.ro, r.verifyGroups(), res)
	r.o.Stats.Widen()
	return err
}

// verifyGroups are the groups as verify reads them: each led by the
// configuration its lists were last collected on, which the backend runs
// when verification starts, so that a per-request override needs no
// restart.
func (r *replayEval) verifyGroups() []*replayGroup {
	out := make([]*replayGroup, len(r.groups))
	for k, sg := range r.groups {
		on := sg.trials[0]
		if sg.on != nil {
			on = *sg.on
		}
		out[k] = &replayGroup{specs: append([]experiments.TrialSpec{on}, sg.trials...)}
	}
	return out
}
