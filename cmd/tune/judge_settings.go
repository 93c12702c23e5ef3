package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/experiments/labels"
	"github.com/fusiontune/fusiontune/judge/llm"
)

// judgeSettings is the settings' judge section: the LLM judge's endpoint,
// prompt and limits (README "Judging" lists them with their ranges).
// Numbers are pointers: not set is not zero.
type judgeSettings struct {
	// URL is the OpenAI-compatible server's base URL.
	URL string `mapstructure:"url"`
	// Model is the model name.
	Model string `mapstructure:"model"`
	// APIKeyEnv names the environment variable holding the API key (the
	// key itself is never in a file).
	APIKeyEnv string `mapstructure:"api_key_env"`
	// Prompt is graded (default), hpn, or a text/template file.
	Prompt string `mapstructure:"prompt"`
	// MaxGrade is a template file's top grade (1..100, default 3).
	MaxGrade    *int           `mapstructure:"max_grade"`
	Batch       *int           `mapstructure:"batch"`
	Concurrency *int           `mapstructure:"concurrency"`
	Timeout     *time.Duration `mapstructure:"timeout"`
	Retries     *int           `mapstructure:"retries"`
	MaxDocChars *int           `mapstructure:"max_doc_chars"`
	Seed        *int64         `mapstructure:"seed"`
	Budget      judgeBudget    `mapstructure:"budget"`
}

// judgeBudget is judge.budget: the most calls and tokens one `tune judge
// run` may spend (0 or unset: no bound).
type judgeBudget struct {
	Calls  *int64 `mapstructure:"calls"`
	Tokens *int64 `mapstructure:"tokens"`
}

// Defaults and ranges of the judge settings (the llm package's).
const (
	defaultJudgePrompt  = llm.PromptGraded
	defaultJudgeMaxGrad = 3
	maxJudgeBudget      = 1_000_000_000_000
	defaultLabelsFile   = "labels.db"
)

// intOr returns *p, or def when p is nil.
func intOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// rangeJudge checks every judge.* number against its range, and the URL
// and key variable's form (settings.validate calls it, so a bad judge
// setting fails any command before work starts).
func (s *settings) rangeJudge(r ranges) {
	add := r.add
	j := s.Judge
	r.ints("judge.batch", intOr(j.Batch, llm.DefaultBatch), 1, llm.MaxBatch, "")
	r.ints("judge.concurrency", intOr(j.Concurrency, llm.DefaultConcurrency), 1, llm.MaxConcurrency, "")
	r.ints("judge.retries", intOr(j.Retries, llm.DefaultRetries), 0, llm.MaxRetries, "")
	r.ints("judge.max_doc_chars", intOr(j.MaxDocChars, llm.DefaultMaxDocChars), llm.MinMaxDocChars, llm.MaxMaxDocChars, "")
	r.ints("judge.max_grade", intOr(j.MaxGrade, defaultJudgeMaxGrad), 1, 100, "")
	r.duration("judge.timeout", intOr(j.Timeout, llm.DefaultTimeout), llm.MaxTimeout, false)
	for _, b := range []struct {
		field string
		v     *int64
	}{{"judge.budget.calls", j.Budget.Calls}, {"judge.budget.tokens", j.Budget.Tokens}} {
		if v := intOr(b.v, 0); v < 0 || v > maxJudgeBudget {
			add(b.field, "must be in [0, %d], 0 for no bound (got %d)", int64(maxJudgeBudget), v)
		}
	}
	if j.MaxGrade != nil && (j.Prompt == "" || j.Prompt == llm.PromptGraded || j.Prompt == llm.PromptHPN) {
		add("judge.max_grade", "applies to a prompt template file only (the shipped prompts have their own scales)")
	}
	if s.Labels != "" {
		if _, err := labels.ParseURL(s.Labels); err != nil {
			add("labels", "%v", err)
		}
	}
	if j.URL != "" {
		if u, err := url.Parse(j.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add("judge.url", "want an http(s) base URL such as http://127.0.0.1:8000 (got %q)", j.URL)
		}
	}
	if strings.TrimSpace(j.APIKeyEnv) != j.APIKeyEnv || strings.ContainsAny(j.APIKeyEnv, "=$ ") {
		add("judge.api_key_env", "want the name of an environment variable, such as OPENAI_API_KEY (got %q)", j.APIKeyEnv)
	}
}

// labelsURL returns the label store's URL: the labels setting, relative
// paths resolved against the settings file's directory when written there;
// unset, labels.db beside the settings file (or in the working directory).
func (s *settings) labelsURL() string {
	u := s.Labels
	if u == "" {
		return s.besideSettings(defaultLabelsFile)
	}
	loc, err := labels.ParseURL(u)
	if err != nil || loc.Dialect != labels.DialectSQLite || filepath.IsAbs(loc.DSN) || !s.src.inFile("labels") {
		return u
	}
	return s.besideSettings(loc.DSN)
}

// besideSettings resolves a relative path against the settings file's
// directory.
func (s *settings) besideSettings(path string) string {
	if s.File == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(s.File), path)
}

// judgePrompt loads the prompt judge.prompt names: a shipped one, or a
// template file (relative to the settings file when written there).
func (s *settings) judgePrompt() (*llm.Prompt, error) {
	name := s.Judge.Prompt
	switch name {
	case "":
		return llm.Builtin(defaultJudgePrompt)
	case llm.PromptGraded, llm.PromptHPN:
		return llm.Builtin(name)
	}
	path := name
	if s.src.inFile("judge.prompt") {
		path = s.besideSettings(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: judge.prompt: %w (want %s, %s or a template file)",
			s.src.where("judge.prompt"), err, llm.PromptGraded, llm.PromptHPN))
	}
	p, err := llm.NewPrompt(path, "", string(data), intOr(s.Judge.MaxGrade, defaultJudgeMaxGrad), nil)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: judge.prompt: %w", s.src.where("judge.prompt"), err))
	}
	return p, nil
}
