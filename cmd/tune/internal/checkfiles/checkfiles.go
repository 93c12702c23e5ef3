package checkfiles

import (
	"errors"
	"fmt"
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
	// golden set needs them: their corpus when Corpus is "" and
	// dataset.allow_missing_docs (nil without a settings file).
	Settings func() (*settings.Settings, error)
}

// Kinds are the kinds of file known, tried in order; the golden set,
// matching anything, comes last.
func Kinds() []Kind {
	return []Kind{
		{Name: "experiments", match: tuner.IsExperimentFile, check: func(path string, _ Options) (string, []error, error) {
			return tuner.CheckExperiments(path)
		}},
		{Name: "settings", match: IsSettingsFile, check: func(path string, _ Options) (string, []error, error) {
			return CheckSettings(path)
		}},
		{Name: "golden", match: func(string) bool { return true }, check: checkGolden},
	}
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
// corpusFor.
func checkGolden(path string, o Options) (string, []error, error) {
	lo := experiments.LoadOptions{Format: o.Format, Judgments: o.Judgments, Split: o.QrelsSplit}
	return dataset.CheckGolden(path, lo, o.corpusFor, o.scorer)
}

// corpusFor is the corpus a golden set is resolved against — Corpus, else
// the settings' dataset.corpus or embedded engine corpus, else none — and
// whether the settings allow judged documents missing from it.
func (o Options) corpusFor() (string, bool, error) {
	var s *settings.Settings
	if o.Settings != nil {
		var err error
		if s, err = o.Settings(); err != nil {
			return "", false, err
		}
	}
	if s == nil {
		return o.Corpus, false, nil
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
	var s *settings.Settings
	if o.Settings != nil {
		var err error
		if s, err = o.Settings(); err != nil {
			return nil, err
		}
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

// CheckSettings validates a settings file as a sweep would read it (the
// FUSIONTUNE_* environment applies): every key and value with its
// file:line:col, the input files it names, the primary score and the
// backend's config, without starting anything.
func CheckSettings(path string) (string, []error, error) {
	s, err := load(path)
	if err != nil {
		return "", nil, err
	}
	if err := s.CheckInputs(); err != nil {
		return "", nil, inputerr.Wrap(err)
	}
	var problems []string
	if _, err := s.Score.Scorer(experiments.DefaultScale()); err != nil { // the formula only: the scale comes with the golden set
		problems = append(problems, fmt.Sprintf("%s: score.primary: %v", s.Src.Where("score.primary"), err))
	}
	corpus := s.Dataset.Corpus
	if corpus == "" {
		corpus = s.EngineCorpusPath()
	}
	if corpus == "" {
		// The shipped demo stands in; it is extracted only by a run.
		corpus = settings.CachePath(filepath.Join("demo", "corpus.jsonl"))
	}
	if _, err := s.Factory(corpus, runs.NewRedactor()); err != nil {
		problems = append(problems, err.Error())
	}
	if err := s.CheckDatasetCategories(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return "", nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	dataset := "the shipped demo"
	if s.Dataset.Path != "" {
		dataset = s.Dataset.Path
	}
	return fmt.Sprintf("settings: backend %s, dataset %s, %d gates", s.Backend.Kind, dataset, len(s.ParsedGates)), nil, nil
}
