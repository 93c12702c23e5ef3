package settings

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/tuner/verdict"

	"github.com/fusiontune/fusiontune/tuner/pass"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/experiments"
)

// Settings is tune's configuration, merged in the documented order:
// defaults < settings file (tune.yaml or --config) < FUSIONTUNE_*
// environment variables < flags (see Load). Only cmd/tune reads it; the
// library packages get plain values.
type Settings struct {
	Dataset   experiments.DatasetConfig `mapstructure:"dataset"`
	Datasets  experiments.Datasets      `mapstructure:"datasets"`
	DatasetID string                    `mapstructure:"dataset_id"`
	Backend   Backend                   `mapstructure:"backend"`
	Score     Score                     `mapstructure:"score"`
	Eval      Eval                      `mapstructure:"eval"`
	RunsDir   string                    `mapstructure:"runs_dir"`
	// Stats, Gates and Promotion: statistics, quality gates and the
	// promotion policy (stats.go); ParsedGates holds Gates parsed.
	Stats     Stats     `mapstructure:"stats"`
	Gates     []string  `mapstructure:"gates"`
	Promotion Promotion `mapstructure:"promotion"`
	// Judge is the LLM judge; Labels the label store's URL for tune judge
	// (judge.go).
	// Latency: which trials' latency is measured again (latency.go);
	// ParsedConstraints holds Score.Constraints parsed.
	Latency           Latency        `mapstructure:"latency"`
	ParsedConstraints []verdict.Gate `mapstructure:"-" json:"-"`
	Judge             Judge          `mapstructure:"judge"`
	Labels            string         `mapstructure:"labels"`
	ParsedGates       []verdict.Gate `mapstructure:"-" json:"-"`
	// File is the settings file that was read, "" for none.
	File string `mapstructure:"-"`
	// Src is where each setting came from; Written holds the relative
	// paths as written, before ResolvePaths; Given the path settings that
	// were set (not defaults).
	Src     *Source           `mapstructure:"-" json:"-"`
	Written map[string]string `mapstructure:"-" json:"-"`
	Given   map[string]bool   `mapstructure:"-" json:"-"`
	// SplitGiven is true when dataset.split was set (settings, environment,
	// flag or the datasets entry), so no default split applies.
	SplitGiven bool `mapstructure:"-" json:"-"`
	// FilterCategory and FilterLanguage (--category, --lang) keep only the
	// golden set's queries in that category and language; Filter names
	// the filter OpenRun applied ("" for none).
	FilterCategory, FilterLanguage, Filter string `mapstructure:"-" json:"-"`
	// CacheDir, when set, stands for the cache directory (CachePath) where
	// a run's golden set is read: the shipped demo is extracted and a
	// corpus's ids kept there. tune check sets a throwaway one, so that
	// checking writes nothing.
	CacheDir string `mapstructure:"-" json:"-"`
}

// Score chooses the primary score and the reported metrics.
type Score struct {
	// Primary is "default" (the composite), a metric name such as NDCG@10,
	// or a weighted formula "0.5*NDCG@10+0.5*Recall@20".
	Primary string   `mapstructure:"primary"`
	Metrics []string `mapstructure:"metrics"`
	// Constraints (gate syntax, e.g. "latency.p95 <= 40ms") exclude the
	// trials that fail one from winning (see tuner.Config.Constraints).
	Constraints []string `mapstructure:"constraints"`
	// ConstrainSampler tells a search study's sampler the trials that
	// miss a constraint as worse than any that meets them
	// (tuner.Config.ConstrainSampler).
	ConstrainSampler bool `mapstructure:"constrain_sampler"`
}

// Eval controls the batch evaluation.
type Eval struct {
	Concurrency int           `mapstructure:"concurrency"`
	Timeout     time.Duration `mapstructure:"timeout"`
	Retries     int           `mapstructure:"retries"`
	K           int           `mapstructure:"k"`
	// FailureBudget stops a sweep after this many failed trials (0: never).
	FailureBudget int `mapstructure:"failure_budget"`
	// MaxConsecutiveFailures stops a sweep once this many trials in a row
	// failed with the same error (0: never).
	MaxConsecutiveFailures int `mapstructure:"max_consecutive_failures"`
	// OnQueryError is what a query failing after its retries does: fail
	// (the trial), zero (scored 0) or skip (left out).
	OnQueryError string `mapstructure:"on_query_error"`
}

// Options are the tuner's evaluation options from the eval settings.
func (e Eval) Options() pass.EvalOptions {
	return pass.EvalOptions{Concurrency: e.Concurrency, Timeout: e.Timeout, Retries: e.Retries, K: e.K, OnQueryError: e.OnQueryError}
}

// Validate checks the eval settings against their ranges, listing every
// problem at once (fields relative to the eval block).
func (e Eval) Validate() experiments.Problems {
	var out experiments.Problems
	r := ranges{add: adder(&out)}
	r.ints("concurrency", e.Concurrency, 1, maxConcurrency, "")
	r.duration("timeout", e.Timeout, maxEvalTimeout, false)
	r.ints("retries", e.Retries, 0, maxRetries, "")
	r.ints("k", e.K, 1, maxEvalK, "")
	r.ints("failure_budget", e.FailureBudget, 0, maxTrialCount, " (0: no budget)")
	r.ints("max_consecutive_failures", e.MaxConsecutiveFailures, 0, maxTrialCount, " (0: never stop early)")
	if err := scoring.CheckQueryErrorPolicy(e.OnQueryError); err != nil {
		r.add("on_query_error", "%v", err)
	}
	return out
}

// adder returns a function adding a problem at a field (relative to its
// block) to out.
func adder(out *experiments.Problems) func(field, format string, args ...any) {
	return func(field, format string, args ...any) {
		*out = append(*out, experiments.Problem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
}

// Default settings values.
const (
	DefaultRunsDir      = "tuning_runs"
	DefaultSettingsFile = "tune.yaml"
	// EnvPrefix prefixes the environment variables that set settings.
	EnvPrefix            = "FUSIONTUNE"
	defaultFailureBudget = 0
	// DefaultMaxConsecutiveFailures is eval.max_consecutive_failures.
	DefaultMaxConsecutiveFailures = 3
)

// Defaults are the settings' default values by key, lowest in the merge
// order.
func Defaults() map[string]any {
	d := map[string]any{
		"backend.kind":                  "embedded",
		"backend.start_timeout":         2 * time.Minute,
		"backend.stop_timeout":          10 * time.Second,
		"backend.settle":                0,
		"score.primary":                 "default",
		"score.constrain_sampler":       false,
		"eval.concurrency":              4,
		"eval.timeout":                  30 * time.Second,
		"eval.retries":                  2,
		"eval.k":                        100,
		"eval.failure_budget":           defaultFailureBudget,
		"eval.max_consecutive_failures": DefaultMaxConsecutiveFailures,
		"eval.on_query_error":           scoring.QueryErrorFail,
		"runs_dir":                      DefaultRunsDir,
	}
	for k, v := range statsDefaults() {
		d[k] = v
	}
	for k, v := range latencyDefaults() {
		d[k] = v
	}
	return d
}

// EnvKeys are the settings FUSIONTUNE_* environment variables set
// (dots become underscores: FUSIONTUNE_EVAL_CONCURRENCY).
var EnvKeys = []string{"dataset.id", "dataset.path", "dataset.format", "dataset.judgments", "dataset.corpus",
	"dataset.split", "dataset.split_seed", "dataset.dev_fraction", "dataset.allow_missing_docs", "dataset.labels", "dataset.grades.max",
	"dataset.grades.relevant", "dataset.grades.strong", "dataset.grades.exact", "dataset.max_bytes", "dataset.max_line_bytes",
	"dataset.max_queries", "dataset_id", "backend.kind", "backend.config",
	"backend.start_timeout", "backend.stop_timeout", "backend.settle", "backend.template", "backend.health_url",
	"backend.search.url", "score.primary", "eval.concurrency", "eval.timeout", "eval.retries", "eval.k",
	"eval.failure_budget", "eval.max_consecutive_failures", "eval.on_query_error", "runs_dir",
	"latency.finalists", "latency.repeats"}

// Validate checks every setting, listing every problem at once, each at
// the place its value came from: each block's Validate (backend, eval,
// stats, promotion, the datasets), then what spans blocks. It parses the
// gates into ParsedGates, adds the metrics gates and comparisons need to
// Score.Metrics, and applies dataset_id.
func (s *Settings) Validate() error {
	var problems experiments.Problems
	add := func(field, format string, args ...any) {
		problems = append(problems, s.Src.Problem(field, format, args...))
	}
	addAll := func(prefix string, ps experiments.Problems) {
		for _, p := range ps {
			field := p.Field
			if prefix != "" {
				field = prefix + "." + field
			}
			add(field, "%s", p.Msg)
		}
	}
	addAll("backend", s.Backend.Validate())
	addAll("eval", s.Eval.Validate())
	if strings.TrimSpace(s.RunsDir) == "" {
		add("runs_dir", "must not be empty")
	}
	addAll("stats", s.Stats.Validate())
	addAll("promotion", s.Promotion.Validate())
	addAll("judge", s.Judge.Validate())
	addAll("latency", s.Latency.Validate())
	s.parseConstraints(add)
	s.validateLabels(add)
	s.parseGates(add)
	addAll("", asProblems("", s.Datasets.Validate()))
	s.applyDataset(add, addAll)
	if len(problems) > 0 {
		SortByPosition(problems)
		return problems
	}
	return nil
}

// applyDataset applies dataset_id (its datasets entry, with --split still
// applying) and the dataset's defaults, checking what they give.
func (s *Settings) applyDataset(add func(field, format string, args ...any), addAll func(string, experiments.Problems)) {
	s.SplitGiven = s.Dataset.Split != ""
	if s.DatasetID != "" {
		for _, d := range s.Datasets {
			if d.ID == s.DatasetID && d.Split != "" {
				s.SplitGiven = true
			}
		}
		d, err := s.Datasets.Lookup(s.DatasetID)
		if err != nil {
			add("dataset_id", "%q: %s", s.DatasetID, strings.TrimPrefix(err.Error(), fmt.Sprintf("dataset_id %q: ", s.DatasetID)))
		} else {
			if s.Dataset.Split != "" {
				d.Split = s.Dataset.Split // --split still applies
				split := experiments.DatasetConfig{Path: d.Path, Split: d.Split, DevFraction: d.DevFraction}
				addAll("dataset", asProblems("", split.Validate()))
			}
			s.Dataset = d
		}
	}
	if s.Dataset.Path != "" && s.DatasetID == "" { // a datasets entry was validated above
		s.Dataset = s.Dataset.WithDefaults()
		addAll("dataset", asProblems("", s.Dataset.Validate()))
	}
}

// asProblems turns an error into problems: its own when it holds them,
// else one "field: message" problem worded by code that words its own
// (field falls back to prefix).
func asProblems(prefix string, err error) experiments.Problems {
	if err == nil {
		return nil
	}
	var ps experiments.Problems
	if errors.As(err, &ps) {
		return ps
	}
	return experiments.Problems{textProblem(prefix, err.Error())}
}

// textProblem splits "field: message" into a problem; text without a
// field is a problem at prefix.
func textProblem(prefix, text string) experiments.Problem {
	field, msg, ok := strings.Cut(text, ": ")
	if !ok || strings.ContainsAny(field, " \"") {
		return experiments.Problem{Field: prefix, Msg: text}
	}
	return experiments.Problem{Field: field, Msg: msg}
}

// SortByPosition orders problems by line and column where they have
// them (the settings file's), keeping the others' order after them.
func SortByPosition(ps experiments.Problems) {
	lineCol := func(pos string) (int, int, bool) {
		parts := strings.Split(pos, ":")
		if len(parts) < 3 {
			return 0, 0, false
		}
		l, err1 := strconv.Atoi(parts[len(parts)-2])
		c, err2 := strconv.Atoi(parts[len(parts)-1])
		return l, c, err1 == nil && err2 == nil
	}
	sort.SliceStable(ps, func(i, j int) bool {
		li, ci, oki := lineCol(ps[i].Pos)
		lj, cj, okj := lineCol(ps[j].Pos)
		if oki != okj {
			return oki
		}
		return oki && (li < lj || li == lj && ci < cj)
	})
}
