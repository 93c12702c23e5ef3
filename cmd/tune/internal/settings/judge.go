package settings

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Judge is the settings' judge block: the LLM judge's endpoint, prompt and
// limits (docs/reference/settings.md lists them with their ranges). Numbers are
// pointers: not set is not zero.
type Judge struct {
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
	// AnswerRetries is how many more times a malformed answer is asked
	// again (0..10, default 2).
	AnswerRetries *int        `mapstructure:"answer_retries"`
	MaxDocChars   *int        `mapstructure:"max_doc_chars"`
	Seed          *int64      `mapstructure:"seed"`
	Budget        JudgeBudget `mapstructure:"budget"`
	// Rubrics maps a query category to the rubric a prompt template
	// shows for its queries ({{.Rubric}}).
	Rubrics map[string]string `mapstructure:"rubrics"`
	// Ensemble is the judge `tune judge run --judge ensemble` uses.
	Ensemble JudgeEnsemble `mapstructure:"ensemble"`
}

// JudgeEnsemble is judge.ensemble: several judges whose vote is the label.
type JudgeEnsemble struct {
	// Vote is majority (default) or mean.
	Vote string `mapstructure:"vote"`
	// Members are the judges, at least two.
	Members []EnsembleMember `mapstructure:"members"`
}

// EnsembleMember is one judge of an ensemble: a qrels file (File), or
// the judge block's LLM judge with the fields set here replacing its own.
type EnsembleMember struct {
	File      string `mapstructure:"file"`
	URL       string `mapstructure:"url"`
	Model     string `mapstructure:"model"`
	APIKeyEnv string `mapstructure:"api_key_env"`
	Prompt    string `mapstructure:"prompt"`
}

// DefaultEnsembleVote is judge.ensemble.vote when not set.
const DefaultEnsembleVote = judge.VoteMajority

// JudgeBudget is judge.budget: the most calls and tokens one `tune judge
// run` may spend (0 or unset: no bound).
type JudgeBudget struct {
	Calls  *int64 `mapstructure:"calls"`
	Tokens *int64 `mapstructure:"tokens"`
}

// Defaults and ranges of the judge settings (the llm package's).
const (
	// DefaultJudgeMaxGrade is a prompt template file's top grade when
	// judge.max_grade is not set.
	DefaultJudgeMaxGrade = 3
	// MaxJudgeBudget bounds judge.budget.calls and judge.budget.tokens.
	MaxJudgeBudget = 1_000_000_000_000
)

// Or returns *p, or def when p is nil.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// Validate checks every judge number against its range, and the URL and
// key variable's form, listing every problem at once (fields relative to
// the judge block).
func (j Judge) Validate() experiments.Problems {
	var out experiments.Problems
	r := ranges{add: adder(&out)}
	r.ints("batch", Or(j.Batch, llm.DefaultBatch), 1, llm.MaxBatch, "")
	r.ints("concurrency", Or(j.Concurrency, llm.DefaultConcurrency), 1, llm.MaxConcurrency, "")
	r.ints("retries", Or(j.Retries, llm.DefaultRetries), 0, llm.MaxRetries, "")
	r.ints("answer_retries", Or(j.AnswerRetries, llm.DefaultAnswerRetries), 0, llm.MaxAnswerRetries, "")
	r.ints("max_doc_chars", Or(j.MaxDocChars, llm.DefaultMaxDocChars), llm.MinMaxDocChars, llm.MaxMaxDocChars, "")
	r.ints("max_grade", Or(j.MaxGrade, DefaultJudgeMaxGrade), 1, 100, "")
	r.duration("timeout", Or(j.Timeout, llm.DefaultTimeout), llm.MaxTimeout, false)
	for _, b := range []struct {
		field string
		v     *int64
	}{{"budget.calls", j.Budget.Calls}, {"budget.tokens", j.Budget.Tokens}} {
		if v := Or(b.v, 0); v < 0 || v > MaxJudgeBudget {
			r.add(b.field, "must be in [0, %d], 0 for no bound (got %d)", int64(MaxJudgeBudget), v)
		}
	}
	if j.MaxGrade != nil && (j.Prompt == "" || j.Prompt == llm.PromptGraded || j.Prompt == llm.PromptHPN) {
		r.add("max_grade", "applies to a prompt template file only (the shipped prompts have their own scales)")
	}
	if j.URL != "" {
		if u, err := url.Parse(j.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			r.add("url", "want an http(s) base URL such as http://127.0.0.1:8000 (got %q)", j.URL)
		}
	}
	if strings.TrimSpace(j.APIKeyEnv) != j.APIKeyEnv || strings.ContainsAny(j.APIKeyEnv, "=$ ") {
		r.add("api_key_env", "want the name of an environment variable, such as OPENAI_API_KEY (got %q)", j.APIKeyEnv)
	}
	if v := j.Ensemble.Vote; v != "" && v != judge.VoteMajority && v != judge.VoteMean {
		r.add("ensemble.vote", "want %s or %s (got %q)", judge.VoteMajority, judge.VoteMean, v)
	}
	if n := len(j.Ensemble.Members); n == 1 {
		r.add("ensemble.members", "an ensemble needs at least two members (got 1)")
	}
	for i, m := range j.Ensemble.Members {
		if m.File != "" && (m.URL != "" || m.Model != "" || m.APIKeyEnv != "" || m.Prompt != "") {
			r.add(fmt.Sprintf("ensemble.members[%d]", i), "a file member takes no url, model, api_key_env or prompt")
		}
	}
	return out
}

// validateLabels checks the label store URLs (labels, dataset.labels).
func (s *Settings) validateLabels(add func(field, format string, args ...any)) {
	for _, l := range []struct{ field, url string }{{"labels", s.Labels}, {"dataset.labels", s.Dataset.Labels}} {
		if l.url == "" {
			continue
		}
		if _, err := labels.ParseURL(l.url); err != nil {
			add(l.field, "%v", err)
		}
	}
}
