package sampler

import (
	"errors"
	"fmt"

	"github.com/c-bata/goptuna"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// DefaultStudyName names the goptuna study when Options.StudyName is
// empty.
const DefaultStudyName = "fusiontune"

// Options configure a sampler study: the search space, the sampler
// and its seed, the budget, optional pruning, and where the study lives.
//
// Storage is pluggable: nil keeps the study in memory (one process, and a
// resumed run replays its recorded trials into a fresh study); any
// goptuna.Storage — e.g. an RDB storage shared by several workers — may be
// passed instead, with StudyName naming the study in it and LoadIfExists
// joining a study another process created.
type Options struct {
	// Space is the experiment file's search space (required).
	Space []experiments.SpaceParam
	// Sampler is random, tpe (default) or cmaes.
	Sampler string
	// Seed seeds the sampler: the same seed, space and observed scores give
	// the same sequence of trials. Concurrent workers on one storage should
	// use distinct seeds.
	Seed int64
	// Trials is the number of trials to sample (the budget).
	Trials int
	// StartupTrials is how many observed trials TPE and CMA-ES wait for
	// before modelling (0: DefaultStartupTrials(Trials)).
	StartupTrials int
	// Base holds the parameters every sampled trial starts from (the
	// baseline's); sampled values overlay it.
	Base experiments.Params
	// Pruning turns on successive halving on query subsets.
	Pruning experiments.Pruning
	// Storage holds the study (nil: in memory).
	Storage goptuna.Storage
	// StudyName names the study in Storage (default DefaultStudyName).
	StudyName string
	// LoadIfExists joins an existing study of that name in Storage.
	LoadIfExists bool
	// Logger receives goptuna's log lines (nil: discarded).
	Logger goptuna.Logger
	// Objective is the value the sampler is told for a completed trial
	// (nil: its primary score): a search under constraints tells it less
	// for a trial that misses them (verdict.ConstrainedObjective).
	// results are the trial's per-query results when the caller holds
	// them (nil: read from the run).
	Objective func(rec runs.TrialRecord, results []runs.QueryResult) (float64, error)
}

// Study is a goptuna study over a search space, driven by ask and tell:
// Ask proposes a trial, Report gives a partial score on a query subset and
// says whether to prune, Tell gives the outcome.
type Study struct {
	g    *goptuna.Study
	o    Options
	dims []dim
}

// Proposal is one trial of a study: its goptuna trial and the parameters
// to evaluate.
type Proposal struct {
	// ID is the goptuna trial id, Number its number within the study.
	ID, Number int
	// Params are the full parameters (Base overlaid by the sampled values).
	Params experiments.Params
}

// New creates (or, with LoadIfExists, joins) the study, maximizing
// the primary score.
func New(o Options) (*Study, error) {
	dims, err := newSpace(o.Space)
	if err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.StartupTrials <= 0 {
		o.StartupTrials = DefaultStartupTrials(o.Trials)
	}
	if o.StudyName == "" {
		o.StudyName = DefaultStudyName
	}
	if o.Base == nil {
		o.Base = experiments.Params{}
	}
	independent, relative, err := newSamplers(o.Sampler, o.Seed, o.StartupTrials)
	if err != nil {
		return nil, err
	}
	if relative != nil && !numeric(dims) {
		// CMA-ES models the numeric parameters only (goptuna's panics on
		// none); the independent sampler draws the categorical ones, so
		// a space of categorical parameters alone is all its.
		relative = nil
	}
	opts := studyOptions(o, dims, independent, relative)
	g, err := goptuna.CreateStudy(o.StudyName, opts...)
	if err != nil {
		return nil, fmt.Errorf("study %q: %w", o.StudyName, err)
	}
	return &Study{g: g, o: o, dims: dims}, nil
}

// check checks the study's budget and its pruning settings (when pruning
// is on) against their ranges.
func (o Options) check() error {
	if o.Trials <= 0 {
		return fmt.Errorf("study: trials must be > 0 (got %d)", o.Trials)
	}
	if !o.Pruning.Enabled {
		return nil
	}
	if !(o.Pruning.Fraction > 0 && o.Pruning.Fraction < 1) {
		return fmt.Errorf("study: pruning.fraction must be > 0 and < 1 (got %v)", o.Pruning.Fraction)
	}
	if o.Pruning.ReductionFactor < 2 {
		return fmt.Errorf("study: pruning.reduction_factor must be >= 2 (got %d)", o.Pruning.ReductionFactor)
	}
	return nil
}

// studyOptions are goptuna's options for the study o describes over dims:
// maximize, the independent sampler and the relative one (if any), the
// logger (a discarding one by default), the search space, joining an
// existing study when o.LoadIfExists, successive halving when pruning is
// on, and o's storage when given.
func studyOptions(o Options, dims []dim, independent goptuna.Sampler, relative goptuna.RelativeSampler) []goptuna.StudyOption {
	logger := o.Logger
	if logger == nil {
		logger = &goptuna.StdLogger{} // no *log.Logger: discards
	}
	opts := []goptuna.StudyOption{
		goptuna.StudyOptionDirection(goptuna.StudyDirectionMaximize),
		goptuna.StudyOptionSampler(independent),
		goptuna.StudyOptionLogger(logger),
		goptuna.StudyOptionDefineSearchSpace(searchSpace(dims)),
		goptuna.StudyOptionLoadIfExists(o.LoadIfExists),
	}
	if relative != nil {
		opts = append(opts, goptuna.StudyOptionRelativeSampler(relative))
	}
	if o.Pruning.Enabled {
		opts = append(opts, goptuna.StudyOptionPruner(&halving{eta: o.Pruning.ReductionFactor}))
	}
	if o.Storage != nil {
		opts = append(opts, goptuna.StudyOptionStorage(o.Storage))
	}
	return opts
}

// Goptuna returns the underlying goptuna study.
func (s *Study) Goptuna() *goptuna.Study { return s.g }

// Options returns the study's options with defaults applied.
func (s *Study) Options() Options { return s.o }

// Ask creates a trial and samples every parameter of the space, in the
// space's order.
func (s *Study) Ask() (Proposal, error) {
	id, err := s.g.Storage.CreateNewTrial(s.g.ID)
	if err != nil {
		return Proposal{}, fmt.Errorf("study: new trial: %w", err)
	}
	return s.AskTrial(id)
}

// AskTrial samples every parameter of the space into trial id, a RUNNING
// trial created elsewhere (a worker's claim on a shared study).
func (s *Study) AskTrial(id int) (Proposal, error) {
	var err error
	t := goptuna.Trial{Study: s.g, ID: id}
	if err := t.CallRelativeSampler(); err != nil {
		return Proposal{}, fmt.Errorf("study: relative sampler: %w", err)
	}
	p := Proposal{ID: id, Params: s.o.Base.Clone()}
	for _, d := range s.dims {
		v, err := d.suggest(&t)
		if err != nil {
			return Proposal{}, fmt.Errorf("study: sample %s: %w", d.sp.Param, err)
		}
		p.Params[d.sp.Param] = v
	}
	p.Number, err = t.Number()
	if err != nil {
		return Proposal{}, fmt.Errorf("study: %w", err)
	}
	return p, nil
}

// AskFixed registers a trial whose parameters are given (the experiment
// file's baseline, variants and grid): the values of parameters that lie
// inside the space become observations for the sampler once told.
func (s *Study) AskFixed(params experiments.Params) (Proposal, error) {
	id, err := s.g.Storage.CreateNewTrial(s.g.ID)
	if err != nil {
		return Proposal{}, fmt.Errorf("study: new trial: %w", err)
	}
	return s.AskFixedTrial(id, params)
}

// AskFixedTrial is AskFixed for trial id, a RUNNING trial created
// elsewhere (a queued trial a worker claimed on a shared study).
func (s *Study) AskFixedTrial(id int, params experiments.Params) (Proposal, error) {
	for _, d := range s.dims {
		v, ok := params[d.sp.Param]
		if !ok {
			continue
		}
		if ir, ok := d.internal(v); ok {
			if err := s.g.Storage.SetTrialParam(id, d.sp.Param, ir, d.distribution); err != nil {
				return Proposal{}, fmt.Errorf("study: set %s: %w", d.sp.Param, err)
			}
		}
	}
	n, err := s.g.Storage.GetTrialNumberFromID(id)
	if err != nil {
		return Proposal{}, fmt.Errorf("study: %w", err)
	}
	return Proposal{ID: id, Number: n, Params: params.Clone()}, nil
}

// Report records a trial's partial primary score at a successive-halving
// rung (0 for the smallest query subset) and says whether the trial should
// be pruned there. Without pruning it never prunes.
func (s *Study) Report(p Proposal, rung int, value float64) (bool, error) {
	if !s.o.Pruning.Enabled {
		return false, nil
	}
	t := goptuna.Trial{Study: s.g, ID: p.ID}
	err := t.ShouldPrune(rung, value)
	if errors.Is(err, goptuna.ErrTrialPruned) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("study: report rung %d: %w", rung, err)
	}
	return false, nil
}

// Tell finishes a trial with its record: ok trials complete with their
// primary score, pruned ones with their partial score, failed ones fail.
func (s *Study) Tell(p Proposal, rec runs.TrialRecord) error {
	state := goptuna.TrialStateFail
	switch rec.Status {
	case runs.StatusOK:
		state = goptuna.TrialStateComplete
	case runs.StatusPruned:
		state = goptuna.TrialStatePruned
	}
	if state != goptuna.TrialStateFail {
		v, err := s.Value(rec, nil)
		if err != nil {
			return fmt.Errorf("study: tell trial %d: %w", p.Number, err)
		}
		if err := s.g.Storage.SetTrialValue(p.ID, v); err != nil {
			return fmt.Errorf("study: tell trial %d: %w", p.Number, err)
		}
	}
	if err := s.g.Storage.SetTrialState(p.ID, state); err != nil {
		return fmt.Errorf("study: tell trial %d: %w", p.Number, err)
	}
	return nil
}

// Value is what the sampler is told for rec (results: its per-query
// results, nil when the run holds them): Options.Objective's value for a
// completed trial, else (and for a pruned one) its primary score.
func (s *Study) Value(rec runs.TrialRecord, results []runs.QueryResult) (float64, error) {
	if s.o.Objective == nil || rec.Status != runs.StatusOK {
		return rec.Primary, nil
	}
	return s.o.Objective(rec, results)
}

// Replay tells a study a trial recorded earlier (a resumed run): its rung
// scores are reported again, so that the pruner sees what it saw, then its
// outcome.
func (s *Study) Replay(p Proposal, rec runs.TrialRecord) error {
	for i, r := range rec.Rungs {
		if _, err := s.Report(p, i, r.Primary); err != nil {
			return err
		}
	}
	return s.Tell(p, rec)
}

// OptionsFor returns the study options an experiment file asks for:
// its space, sampler, seed, budget and pruning, sampled trials starting
// from its baseline's parameters. Storage and naming are left to the
// caller.
func OptionsFor(ef *experiments.ExperimentFile) Options {
	o := Options{Space: ef.Space, Sampler: ef.Sampler, Seed: ef.Seed, Trials: ef.Trials, Base: experiments.Params{}}
	if ef.Baseline != nil {
		o.Base = ef.Baseline.Params.Clone()
	}
	if ef.Pruning != nil {
		o.Pruning = *ef.Pruning
	}
	return o
}

// Corners lists trials at the edges of the space (each parameter at its
// low and high, each choice), on top of the base parameters, so that a
// backend's config checks can run before the study starts.
func (o Options) Corners() []experiments.TrialSpec {
	var out []experiments.TrialSpec
	add := func(param string, v any) {
		p := o.Base.Clone()
		p[param] = v
		out = append(out, experiments.TrialSpec{Name: fmt.Sprintf("space %s=%s", param, experiments.FormatValue(v)), Params: p})
	}
	for _, sp := range o.Space {
		if sp.Type == "categorical" {
			for _, c := range sp.Choices {
				add(sp.Param, c)
			}
			continue
		}
		add(sp.Param, sp.Low)
		add(sp.Param, sp.High)
	}
	return out
}

// Describe summarizes the study for a progress line, e.g.
// "40 tpe trials (seed 42), pruning from 25% of the queries, η=3".
func (o Options) Describe() string {
	sampler := o.Sampler
	if sampler == "" {
		sampler = Default
	}
	s := fmt.Sprintf("%d %s trials (seed %d)", o.Trials, sampler, o.Seed)
	if o.Pruning.Enabled {
		s += fmt.Sprintf(", pruning from %.0f%% of the queries, η=%d", 100*o.Pruning.Fraction, o.Pruning.ReductionFactor)
	}
	return s
}

// numeric reports whether the space has an int, float or log_float
// parameter.
func numeric(dims []dim) bool {
	for _, d := range dims {
		if d.sp.Type != "categorical" {
			return true
		}
	}
	return false
}
