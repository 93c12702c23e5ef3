package experiments

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Defaults of DatasetConfig.
const (
	DefaultSplit       = SplitAll
	DefaultSplitSeed   = int64(1)
	DefaultDevFraction = 0.5
)

// ErrUnknownDataset is returned by Datasets.Lookup for an id not configured.
var ErrUnknownDataset = errors.New("unknown dataset")

// DatasetConfig names a golden set, how to read it, the corpus its passage
// judgments resolve against and the part of it to evaluate. cmd fills it
// from the settings (the mapstructure tags are viper's keys); optional
// numbers are pointers so that "not set" differs from zero.
type DatasetConfig struct {
	ID          string   `mapstructure:"id"`          // dataset_id that selects it
	Path        string   `mapstructure:"path"`        // golden-set file, topics file or BEIR folder
	Format      string   `mapstructure:"format"`      // native, trec, beir or "" to detect
	Judgments   string   `mapstructure:"judgments"`   // separate judgments file (JSONL or qrels)
	Corpus      string   `mapstructure:"corpus"`      // corpus file; a BEIR folder's corpus.jsonl by default
	QrelsSplit  string   `mapstructure:"qrels_split"` // BEIR qrels/<split>.tsv; DefaultBEIRSplit by default
	Split       string   `mapstructure:"split"`       // all, dev or test; DefaultSplit by default
	SplitSeed   *int64   `mapstructure:"split_seed"`  // DefaultSplitSeed by default
	DevFraction *float64 `mapstructure:"dev_fraction"`
	// Grades is the grade scale (dataset.grades: max, map, relevant,
	// strong, exact); unset, the data's own (see GradeScale).
	Grades GradeScale `mapstructure:"grades"`
	// AllowMissingDocs scores a golden set whose doc_id judgments name
	// documents the corpus does not hold (a warning) instead of refusing
	// it (see Resolved.CheckMissing).
	AllowMissingDocs bool `mapstructure:"allow_missing_docs"`
	// Labels is a label store's URL (a SQLite file or postgres://) whose
	// labels a sweep merges into the judgments (dataset.Dataset.MergeLabels).
	Labels string `mapstructure:"labels"`
	// MaxBytes, MaxLineBytes and MaxQueries bound the golden set (see
	// Limits; nil: the default).
	MaxBytes     *int64 `mapstructure:"max_bytes"`
	MaxLineBytes *int   `mapstructure:"max_line_bytes"`
	MaxQueries   *int   `mapstructure:"max_queries"`
}

// WithDefaults returns c with every unset field given its default. A BEIR
// folder (Format beir, or a folder path with Format unset) gets its own
// corpus.jsonl as Corpus.
func (c DatasetConfig) WithDefaults() DatasetConfig {
	if c.Split == "" {
		c.Split = DefaultSplit
	}
	if c.SplitSeed == nil {
		s := DefaultSplitSeed
		c.SplitSeed = &s
	}
	if c.DevFraction == nil {
		f := DefaultDevFraction
		c.DevFraction = &f
	}
	if c.Corpus == "" && c.Path != "" {
		if fi, err := os.Stat(c.Path); c.Format == FormatBEIR || (c.Format == "" && err == nil && fi.IsDir()) {
			c.Corpus = BEIRCorpusPath(c.Path)
		}
	}
	if c.QrelsSplit == "" {
		c.QrelsSplit = DefaultBEIRSplit // read by BEIR folders only
	}
	return c
}

// Validate reports every problem of c at once as Problems, fields named
// as in the settings file.
func (c DatasetConfig) Validate() error {
	l := &problemList{}
	c.validate("", l)
	return l.err()
}

func (c DatasetConfig) validate(prefix string, l *problemList) {
	field := func(name string) string { return join(prefix, name) }
	if strings.TrimSpace(c.Path) == "" {
		l.errorf("", field("path"), "required: a golden-set file or BEIR folder")
	}
	switch c.Format {
	case "", FormatNative, FormatTREC, FormatBEIR:
	default:
		l.errorf("", field("format"), "unknown format %q (expected native, trec or beir)", c.Format)
	}
	if c.Format == FormatTREC && c.Judgments == "" {
		l.errorf("", field("judgments"), "required for format trec: a qrels or JSONL judgments file")
	}
	if c.Format == FormatBEIR && c.Judgments != "" {
		l.errorf("", field("judgments"), "not allowed for format beir: the folder carries its qrels")
	}
	switch c.Split {
	case "", SplitAll, SplitDev, SplitTest:
	default:
		l.errorf("", field("split"), "unknown split %q (expected all, dev or test)", c.Split)
	}
	if f := c.DevFraction; f != nil && !(*f >= 0 && *f <= 1) {
		l.errorf("", field("dev_fraction"), "must be between 0 and 1 (got %v)", *f)
	} else if f != nil {
		// A split that would leave the evaluated part empty.
		switch {
		case c.Split == SplitDev && *f == 0:
			l.errorf("", field("dev_fraction"), "must be > 0 with split dev: the dev part would be empty (got 0)")
		case c.Split == SplitTest && *f == 1:
			l.errorf("", field("dev_fraction"), "must be < 1 with split test: the test part would be empty (got 1)")
		}
	}
	c.Grades.validate(field("grades"), l)
	if v := c.MaxBytes; v != nil && (*v < MinMaxBytes || *v > MaxMaxBytes) {
		l.errorf("", field("max_bytes"), "must be from %d to %d (got %d)", MinMaxBytes, int64(MaxMaxBytes), *v)
	}
	if v := c.MaxLineBytes; v != nil && (*v < MinMaxBytes || *v > MaxMaxLineBytes) {
		l.errorf("", field("max_line_bytes"), "must be from %d to %d (got %d)", MinMaxBytes, MaxMaxLineBytes, *v)
	}
	if v := c.MaxQueries; v != nil && (*v < 1 || *v > MaxMaxQueries) {
		l.errorf("", field("max_queries"), "must be from 1 to %d (got %d)", MaxMaxQueries, *v)
	}
}

// Limits returns the golden set's limits c sets (zero fields: defaults).
func (c DatasetConfig) Limits() Limits {
	var l Limits
	if c.MaxBytes != nil {
		l.MaxBytes = *c.MaxBytes
	}
	if c.MaxLineBytes != nil {
		l.MaxLineBytes = *c.MaxLineBytes
	}
	if c.MaxQueries != nil {
		l.MaxQueries = *c.MaxQueries
	}
	return l.WithDefaults()
}

// LoadOptions returns the options LoadGoldenSet needs for c.
func (c DatasetConfig) LoadOptions() LoadOptions {
	return LoadOptions{Format: c.Format, Judgments: c.Judgments, Split: c.QrelsSplit, Grades: c.Grades, Limits: c.Limits()}
}

// Load validates c, loads its golden set and returns the configured split.
func (c DatasetConfig) Load() (*GoldenSet, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	gs, err := LoadGoldenSet(c.Path, c.LoadOptions())
	if err != nil {
		return nil, err
	}
	return gs.Subset(c.Split, *c.SplitSeed, *c.DevFraction)
}

// Datasets is the list of named datasets of the settings.
type Datasets []DatasetConfig

// Lookup returns the dataset whose ID is id, with defaults applied.
func (ds Datasets) Lookup(id string) (DatasetConfig, error) {
	var known []string
	for _, d := range ds {
		if d.ID == id {
			return d.WithDefaults(), nil
		}
		known = append(known, d.ID)
	}
	if len(known) == 0 {
		return DatasetConfig{}, fmt.Errorf("dataset_id %q: %w (no datasets are configured: add a datasets list)", id, ErrUnknownDataset)
	}
	return DatasetConfig{}, fmt.Errorf("dataset_id %q: %w (configured: %s)", id, ErrUnknownDataset, strings.Join(known, ", "))
}

// Validate checks every dataset and that ids are present and unique,
// reporting all problems at once with fields like datasets[2].path.
func (ds Datasets) Validate() error {
	l := &problemList{}
	seen := map[string]int{}
	for i, d := range ds {
		prefix := index("datasets", i)
		switch first, dup := seen[d.ID]; {
		case strings.TrimSpace(d.ID) == "":
			l.errorf("", join(prefix, "id"), "required: a name to select the dataset with dataset_id")
		case d.ID == "all": // tune check-quality --dataset-id all picks every dataset
			l.errorf("", join(prefix, "id"), "%q is reserved: dataset_id all picks every dataset", d.ID)
		case dup:
			l.errorf("", join(prefix, "id"), "duplicate dataset id %q (first in datasets[%d])", d.ID, first)
		default:
			seen[d.ID] = i
		}
		d.validate(prefix, l)
	}
	return l.err()
}
