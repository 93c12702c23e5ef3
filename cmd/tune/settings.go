package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/spf13/viper"
)

// settings is tune's configuration, merged in the documented order:
// defaults < settings file (tune.yaml or --config) < FUSIONTUNE_* environment
// variables < flags. Only cmd reads it; the library packages get plain
// values.
type settings struct {
	Dataset   experiments.DatasetConfig `mapstructure:"dataset"`
	Datasets  experiments.Datasets      `mapstructure:"datasets"`
	DatasetID string                    `mapstructure:"dataset_id"`
	Backend   backendSettings           `mapstructure:"backend"`
	Score     scoreSettings             `mapstructure:"score"`
	Eval      evalSettings              `mapstructure:"eval"`
	RunsDir   string                    `mapstructure:"runs_dir"`
	// Stats, Gates and Promotion: statistics, quality gates and the
	// promotion policy (statsettings.go); gates holds Gates parsed.
	Stats     statsSettings     `mapstructure:"stats"`
	Gates     []string          `mapstructure:"gates"`
	Promotion promotionSettings `mapstructure:"promotion"`
	gates     []tuner.Gate
	// File is the settings file that was read, "" for none.
	File string `mapstructure:"-"`
	// src is where each setting came from; written holds the relative
	// paths as written, before resolvePaths; given the path settings that
	// were set (not defaults).
	src     *settingsSource
	written map[string]string
	given   map[string]bool
	// splitGiven is true when dataset.split was set (settings, environment,
	// flag or the datasets entry), so no default split applies.
	splitGiven bool
}

// backendSettings chooses and configures the backend.
type backendSettings struct {
	Kind string `mapstructure:"kind"` // embedded, process, http
	// Engine holds tune serve's config keys for the embedded backend.
	Engine map[string]any `mapstructure:"engine"`
	// Config is the production config file the backend runs on (embedded:
	// an engine YAML whose keys Engine overlays).
	Config       string        `mapstructure:"config"`
	StartTimeout time.Duration `mapstructure:"start_timeout"`
	StopTimeout  time.Duration `mapstructure:"stop_timeout"`
	Settle       time.Duration `mapstructure:"settle"`
	// Command is the process kind's service argv ("{config}" is the
	// rendered config file).
	Command []string `mapstructure:"command"`
	// Restart is the http kind's restart command argv ("{config}" is
	// backend.config).
	Restart []string `mapstructure:"restart"`
	// Template renders a trial's config file (process and http kinds).
	Template string `mapstructure:"template"`
	// HealthURL answers 2xx once the service is ready.
	HealthURL string         `mapstructure:"health_url"`
	Search    searchSettings `mapstructure:"search"`
	Vectors   vectorSettings `mapstructure:"vectors"` // query vectors for process/http templates (vectors.go)

	Weaviate weaviateSettings `mapstructure:"weaviate"` // the weaviate kind (weaviate.go)
}

// searchSettings describe how to query a process or http backend: a
// request template and gjson paths into the JSON response.
type searchSettings struct {
	URL         string `mapstructure:"url"`
	Method      string `mapstructure:"method"`
	Body        string `mapstructure:"body"`
	ContentType string `mapstructure:"content_type"`
	// HeadersEnv maps a header name to the environment variable that holds
	// its value: secrets never live in settings files.
	HeadersEnv     map[string]string `mapstructure:"headers_env"`
	Hits           string            `mapstructure:"hits"`
	ID             string            `mapstructure:"id"`
	ChunkID        string            `mapstructure:"chunk_id"`
	Score          string            `mapstructure:"score"`
	Routing        string            `mapstructure:"routing"`
	Candidates     map[string]string `mapstructure:"candidates"`
	CandidateID    string            `mapstructure:"candidate_id"`
	CandidateDocID string            `mapstructure:"candidate_doc_id"`
	CandidateScore string            `mapstructure:"candidate_score"`
}

// scoreSettings choose the primary score and the reported metrics.
type scoreSettings struct {
	// Primary is "default" (the composite), a metric name such as NDCG@10,
	// or a weighted formula "0.5*NDCG@10+0.5*Recall@20".
	Primary string   `mapstructure:"primary"`
	Metrics []string `mapstructure:"metrics"`
}

// evalSettings control the batch evaluation.
type evalSettings struct {
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

// Default settings values.
const (
	defaultRunsDir       = "tuning_runs"
	defaultSettingsFile  = "tune.yaml"
	envPrefix            = "FUSIONTUNE"
	defaultFailureBudget = 0
	// defaultMaxConsecutiveFailures is eval.max_consecutive_failures.
	defaultMaxConsecutiveFailures = 3
)

func settingsDefaults(v *viper.Viper) {
	v.SetDefault("backend.kind", "embedded")
	v.SetDefault("backend.start_timeout", 2*time.Minute)
	v.SetDefault("backend.stop_timeout", 10*time.Second)
	v.SetDefault("backend.settle", 0)
	v.SetDefault("score.primary", "default")
	v.SetDefault("eval.concurrency", 4)
	v.SetDefault("eval.timeout", 30*time.Second)
	v.SetDefault("eval.retries", 2)
	v.SetDefault("eval.k", 100)
	v.SetDefault("eval.failure_budget", defaultFailureBudget)
	v.SetDefault("eval.max_consecutive_failures", defaultMaxConsecutiveFailures)
	v.SetDefault("eval.on_query_error", tuner.QueryErrorFail)
	v.SetDefault("runs_dir", defaultRunsDir)
	statsDefaults(v)
}

// envKeys are the settings FUSIONTUNE_* environment variables set
// (dots become underscores: FUSIONTUNE_EVAL_CONCURRENCY).
var envKeys = []string{"dataset.id", "dataset.path", "dataset.format", "dataset.judgments", "dataset.corpus",
	"dataset.split", "dataset.split_seed", "dataset.dev_fraction", "dataset.allow_missing_docs", "dataset.grades.max",
	"dataset.grades.relevant", "dataset.grades.strong", "dataset.grades.exact", "dataset_id", "backend.kind", "backend.config",
	"backend.start_timeout", "backend.stop_timeout", "backend.settle", "backend.template", "backend.health_url",
	"backend.search.url", "score.primary", "eval.concurrency", "eval.timeout", "eval.retries", "eval.k",
	"eval.failure_budget", "eval.max_consecutive_failures", "eval.on_query_error", "runs_dir"}

// loadSettings merges defaults, the settings file, the environment and the
// flags that were set on fs (flags bound by name: runs-dir -> runs_dir).
// file is --config; "" reads ./tune.yaml when it exists. The file is first
// decoded with positions, so that every problem names its file:line:col
// (or the environment variable or flag that set the value); relative paths
// resolve against the settings file's directory (see resolvePaths).
func loadSettings(file string, fs *flag.FlagSet, flagKeys map[string]string) (*settings, error) {
	v := viper.New()
	settingsDefaults(v)
	explicit := file != ""
	if !explicit {
		if _, err := os.Stat(defaultSettingsFile); err == nil {
			file = defaultSettingsFile
		}
	}
	src, problems := readSettingsFile(file)
	problems = append(problems, checkEnv(src, envKeys)...)
	if len(problems) > 0 {
		return nil, inputError(problems)
	}
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, inputError(fmt.Errorf("settings %s: %w", file, err))
		}
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	// AutomaticEnv only answers for keys viper knows; bind the nested ones.
	for _, k := range envKeys {
		_ = v.BindEnv(k)
	}
	if fs != nil {
		fs.Visit(func(f *flag.Flag) {
			if key, ok := flagKeys[f.Name]; ok {
				v.Set(key, f.Value.String())
				src.flags[key] = f.Name
			}
		})
	}
	var s settings
	if err := v.UnmarshalExact(&s); err != nil {
		where := "settings"
		if file != "" {
			where = "settings " + file
		}
		return nil, inputError(fmt.Errorf("%s: %w", where, err))
	}
	s.File, s.src = file, src
	if err := s.resolvePaths(); err != nil {
		return nil, inputError(err)
	}
	if err := s.validate(); err != nil {
		return nil, inputError(err)
	}
	return &s, nil
}

// validate checks every setting, listing every problem at once, each at
// the place its value came from.
func (s *settings) validate() error {
	var problems experiments.Problems
	add := func(field, format string, args ...any) {
		problems = append(problems, s.src.problem(field, format, args...))
	}
	// addText adds a "field: message" problem from code that words its own.
	addText := func(prefix, text string) {
		field, msg, ok := strings.Cut(text, ": ")
		if !ok || strings.ContainsAny(field, " \"") {
			field, msg = prefix, text
		} else if prefix != "" {
			field = prefix + "." + field
		}
		add(field, "%s", msg)
	}
	for _, p := range s.Backend.problems() {
		addText("", p)
	}
	s.rangeEvalAndBackend(ranges{add})
	if err := tuner.CheckQueryErrorPolicy(s.Eval.OnQueryError); err != nil {
		add("eval.on_query_error", "%v", err)
	}
	if strings.TrimSpace(s.RunsDir) == "" {
		add("runs_dir", "must not be empty")
	}
	s.validateStats(add)
	addProblems := func(prefix string, err error) {
		var ps experiments.Problems
		if !errors.As(err, &ps) {
			addText(prefix, err.Error())
			return
		}
		for _, p := range ps {
			field := p.Field
			if prefix != "" {
				field = prefix + "." + field
			}
			add(field, "%s", p.Msg)
		}
	}
	if err := s.Datasets.Validate(); err != nil {
		addProblems("", err)
	}
	s.splitGiven = s.Dataset.Split != ""
	if s.DatasetID != "" {
		for _, d := range s.Datasets {
			if d.ID == s.DatasetID && d.Split != "" {
				s.splitGiven = true
			}
		}
		d, err := s.Datasets.Lookup(s.DatasetID)
		if err != nil {
			add("dataset_id", "%q: %s", s.DatasetID, strings.TrimPrefix(err.Error(), fmt.Sprintf("dataset_id %q: ", s.DatasetID)))
		} else {
			if s.Dataset.Split != "" {
				d.Split = s.Dataset.Split // --split still applies
				split := experiments.DatasetConfig{Path: d.Path, Split: d.Split, DevFraction: d.DevFraction}
				if err := split.Validate(); err != nil {
					addProblems("dataset", err)
				}
			}
			s.Dataset = d
		}
	}
	if s.Dataset.Path != "" && s.DatasetID == "" { // a datasets entry was validated above
		s.Dataset = s.Dataset.WithDefaults()
		if err := s.Dataset.Validate(); err != nil {
			addProblems("dataset", err)
		}
	}
	if len(problems) > 0 {
		sortByPosition(problems)
		return problems
	}
	return nil
}

// sortByPosition orders problems by line and column where they have
// them (the settings file's), keeping the others' order after them.
func sortByPosition(ps experiments.Problems) {
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

// redacted returns the settings as a generic map with every value whose key
// looks secret replaced by "[redacted]", for the run's snapshot.
func redacted(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if secrets.IsKey(k) {
				out[k] = "[redacted]"
				continue
			}
			out[k] = redacted(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redacted(e)
		}
		return out
	}
	return v
}
