package checkfiles

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/dataset"
	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// Kind is one kind of user file.
type Kind struct {
	Name string
	// match reports whether path is of this kind (by name or content).
	match func(path string) bool
	// check validates path, returning the summary printed after "ok FILE"
	// and warnings, or the problems found.
	check func(path string, o Options) (summary string, warnings []error, err error)
}

// Options are what some kinds' checks read.
type Options struct {
	Format     string // golden-set format: native, trec, beir or "" to detect
	Judgments  string // separate judgments file for a golden set
	QrelsSplit string // BEIR qrels split
	Corpus     string // corpus to resolve golden-set judgments against
	// Settings are the settings (tune.yaml or --config) read once when a
	// file needs them (nil without a settings file): with them, an
	// experiment file is checked as a sweep of it starts (CheckSweep), a
	// golden set on their corpus, grade scale and score.
	Settings func() (*settings.Settings, error)
	// Lint are the golden-set lints' thresholds (dataset.Lint); Against,
	// when set, an earlier version of the golden set whose query ids are
	// checked for removal and reuse (dataset.LintAgainst).
	Lint    dataset.LintOptions
	Against string
	// Log receives what a sweep's own checks write (its notes and
	// warnings) when a file is checked as a sweep starts (nil: discarded).
	Log io.Writer
}

// settings are o's settings, nil without a settings file.
func (o Options) settings() (*settings.Settings, error) {
	if o.Settings == nil {
		return nil, nil
	}
	return o.Settings()
}

// log is o.Log, io.Discard when nil.
func (o Options) log() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

// Kinds are the kinds of file known, tried in order; the golden set,
// matching anything, comes last.
func Kinds() []Kind {
	return []Kind{
		{Name: "experiments", match: tuner.IsExperimentFile, check: checkExperiments},
		{Name: "settings", match: IsSettingsFile, check: func(path string, o Options) (string, []error, error) {
			return CheckSettings(path, o.log())
		}},
		{Name: "golden", match: func(string) bool { return true }, check: checkGolden},
	}
}

// alone is what `tune check` says below an experiment file checked
// without settings.
const alone = "checked alone: with settings (a tune.yaml here, or --config) it is checked as a sweep starts, its trials against the backend"

// checkExperiments checks an experiment file: as a sweep of it starts
// with the settings when there are some (CheckSweep), else on its own
// (tuner.CheckExperiments: no golden set, no backend to check the trials
// with).
func checkExperiments(path string, o Options) (string, []error, error) {
	s, err := o.settings()
	if err != nil {
		return "", nil, err
	}
	if s == nil {
		summary, warnings, err := tuner.CheckExperiments(path)
		return summary + "\n" + alone, warnings, err
	}
	return CheckSweep(s, path, o.log())
}

// ErrUnknownKind is the error of For for a kind name that is none of
// Kinds' (nor auto).
var ErrUnknownKind = errors.New("unknown --kind")

// For is the kind of path: name, or with name "auto" the first of Kinds
// that matches it.
func For(path, name string) (Kind, error) {
	var names []string
	for _, k := range Kinds() {
		if (name == "auto" && k.match(path)) || k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	return Kind{}, fmt.Errorf("%w %q (expected auto or %s)", ErrUnknownKind, name, strings.Join(names, ", "))
}

// Check validates path as a file of kind k.
func (k Kind) Check(path string, o Options) (summary string, warnings []error, err error) {
	return k.check(path, o)
}

// checkGolden checks a golden set (dataset.CheckGolden) with the corpus of
// corpusFor, on the settings' grade scale (dataset.grades) when there are
// settings; the settings' dataset itself is read as they say (format,
// judgments, qrels split) where the flags do not.
func checkGolden(path string, o Options) (string, []error, error) {
	lo := experiments.LoadOptions{Format: o.Format, Judgments: o.Judgments, Split: o.QrelsSplit}
	s, err := o.settings()
	if err != nil {
		return "", nil, err
	}
	if s != nil {
		lo.Grades = s.Dataset.Grades
		lo.Limits = s.Dataset.Limits()
		if samePath(path, s.Dataset.Path) {
			d := s.Dataset.LoadOptions()
			lo.Format = cmp.Or(lo.Format, d.Format)
			lo.Judgments = cmp.Or(lo.Judgments, d.Judgments)
			if o.QrelsSplit == "" || o.QrelsSplit == experiments.DefaultBEIRSplit {
				lo.Split = cmp.Or(d.Split, lo.Split)
			}
		}
	}
	summary, warnings, err := dataset.CheckGolden(path, lo, o.corpusFor, o.scorer)
	if err != nil {
		return summary, warnings, err
	}
	lints, err := dataset.LintGolden(path, lo, o.Lint, o.Against)
	return summary, append(warnings, lints...), err
}

// samePath reports whether a and b name the same file (b "" never).
func samePath(a, b string) bool {
	if b == "" {
		return false
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// corpusFor is the corpus a golden set is resolved against — Corpus, else
// the settings' dataset.corpus or embedded engine corpus, else none — and
// whether the settings allow judged documents missing from it.
func (o Options) corpusFor() (string, bool, error) {
	s, err := o.settings()
	if err != nil || s == nil {
		return o.Corpus, false, err
	}
	corpus := o.Corpus
	if corpus == "" {
		corpus = s.Dataset.Corpus
	}
	if corpus == "" {
		corpus = s.EngineCorpusPath()
	}
	return corpus, s.Dataset.AllowMissingDocs, nil
}

// scorer is the settings' scorer on a golden set's scale (score.primary,
// score.metrics), or the default one without settings.
func (o Options) scorer(scale experiments.Scale) (*scoring.MetricsScorer, error) {
	s, err := o.settings()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return scoring.NewScorer("default", nil, scoring.ScaleOptions(scale))
	}
	return s.Score.Scorer(scale)
}

// ReadSettings reads the settings file a golden set's corpus comes from:
// file, else ./tune.yaml when present, else none (nil).
func ReadSettings(file string) (*settings.Settings, error) {
	if file == "" {
		if _, err := os.Stat(settings.DefaultSettingsFile); err != nil {
			return nil, nil
		}
	}
	return load(file)
}

// load reads and validates a settings file as tune does (defaults <
// file < FUSIONTUNE_* environment).
func load(file string) (*settings.Settings, error) {
	var s settings.Settings
	if err := settings.Load(&s, &s, file, nil, nil); err != nil {
		return nil, inputerr.Wrap(err)
	}
	return &s, nil
}

// IsSettingsFile reports whether path is a settings file
// (settings.IsFile).
func IsSettingsFile(path string) bool {
	return settings.IsFile(path, reflect.TypeFor[settings.Settings]())
}

// CheckSettings validates a settings file as a sweep reads it before its
// first trial (the FUSIONTUNE_* environment applies): every key and value
// with its file:line:col, the input files it names, then what every run
// opens (settings.OpenRun: the golden set resolved against its corpus,
// the label store, the categories the gates and guards name, the primary
// score on the set's grade scale, the backend's config), starting
// nothing. Notes and warnings go to log.
func CheckSettings(path string, log io.Writer) (string, []error, error) {
	s, err := load(path)
	if err != nil {
		return "", nil, err
	}
	if err := s.CheckInputs(); err != nil {
		return "", nil, inputerr.Wrap(err)
	}
	done, err := throwawayCache(s)
	if err != nil {
		return "", nil, err
	}
	defer done()
	o, err := s.OpenRun(runs.NewRedactor(), log)
	if err != nil {
		return "", nil, err
	}
	dataset := "the shipped demo"
	if !o.Dataset.Demo {
		dataset = s.Dataset.Path
	}
	summary := fmt.Sprintf("settings: backend %s, dataset %s (%d queries), %d gates", s.Backend.Kind, dataset, len(o.Dataset.Queries), len(s.ParsedGates))
	return summary + scoreLines(o.Dataset.Golden.Scale.String(), o.Scorer), unvarying(o.Scorer, o.Dataset.Queries), nil
}

// CheckSweep checks the experiment file at path exactly as a sweep of it
// with the settings s checks it before its first trial — through the
// sweep's own code, settings.PrepareSweep: the file, the golden set and
// its corpus, the scorer, every trial's config against the backend kind,
// the search space, the replay — with no backend started and no run
// directory made. The sweep's notes and warnings go to log.
func CheckSweep(s *settings.Settings, path string, log io.Writer) (string, []error, error) {
	cp := *s // the sweep's preparation settles the settings' dataset
	s = &cp
	done, err := throwawayCache(s)
	if err != nil {
		return "", nil, err
	}
	defer done()
	r := tuner.SweepRequest{Experiments: path, Mode: string(tuner.ModeAuto), Verify: tuner.DefaultVerify}
	c, err := s.PrepareSweep(r, false, settings.SweepJudge{}, runs.NewRedactor(), log)
	if err != nil {
		return "", nil, err
	}
	summary := fmt.Sprintf("experiments: %s", tuner.DescribeTrials(c.Trials, c.Study))
	summary += fmt.Sprintf("\nchecked as a sweep with %s starts: %d queries (%s), backend %s", s.File, len(c.Queries), c.Dataset, s.Backend.Kind)
	return summary + scoreLines("", c.Scorer), unvarying(c.Scorer, c.Queries), nil
}

// throwawayCache points s's cache at a new temporary directory, which
// done removes: checking writes nothing (the shipped demo standing in for
// a missing dataset is extracted there).
func throwawayCache(s *settings.Settings) (done func(), err error) {
	dir, err := os.MkdirTemp("", "fusiontune-check-")
	if err != nil {
		return nil, err
	}
	s.CacheDir = dir
	return func() { os.RemoveAll(dir) }, nil
}

// scoreLines are the lines `tune check` prints below a summary: the grade
// scale (when scale is not "") and the primary score.
func scoreLines(scale string, sc *scoring.MetricsScorer) string {
	out := ""
	if scale != "" {
		out += "\ngrades: " + scale
	}
	return out + "\nprimary: " + sc.Describe()
}

// unvarying are the warnings about the measures sc configures that no
// ranking can move on queries (MetricsScorer.Unvarying).
func unvarying(sc *scoring.MetricsScorer, queries []scoring.Query) []error {
	var out []error
	for _, w := range sc.Unvarying(scoring.HighestGrade(queries)) {
		out = append(out, errors.New(w))
	}
	return out
}
