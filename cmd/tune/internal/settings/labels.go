package settings

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/internal/userfile"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Defaults of the judge commands.
const (
	// DefaultJudgePrompt is the prompt when judge.prompt is not set.
	DefaultJudgePrompt = llm.PromptGraded
	// DefaultLabelsFile is the label store beside the settings file when
	// neither labels nor dataset.labels is set.
	DefaultLabelsFile = "labels.db"
)

// LabelsURL returns the label store's URL for the judge commands: the
// labels setting, else dataset.labels, else labels.db beside the settings
// file (or in the working directory).
func (s *Settings) LabelsURL() string {
	switch {
	case s.Labels != "":
		return s.StoreURL("labels", s.Labels)
	case s.Dataset.Labels != "":
		return s.StoreURL("dataset.labels", s.Dataset.Labels)
	}
	return s.BesideSettings(DefaultLabelsFile)
}

// StoreURL returns the store URL u set at key with a relative SQLite path
// resolved against the settings file's directory when it was written
// there, as every path setting is.
func (s *Settings) StoreURL(key, u string) string {
	loc, err := labels.ParseURL(u)
	if err != nil || loc.Dialect != labels.DialectSQLite || filepath.IsAbs(loc.DSN) || !s.Src.InFile(key) {
		return u
	}
	return s.BesideSettings(loc.DSN)
}

// BesideSettings resolves a relative path against the settings file's
// directory.
func (s *Settings) BesideSettings(path string) string {
	if s.File == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(s.File), path)
}

// JudgePrompt loads the prompt judge.prompt names: a shipped one, or a
// template file (relative to the settings file when written there).
func (s *Settings) JudgePrompt() (*llm.Prompt, error) {
	name := s.Judge.Prompt
	switch name {
	case "":
		return llm.Builtin(DefaultJudgePrompt)
	case llm.PromptGraded, llm.PromptHPN:
		return llm.Builtin(name)
	}
	path := name
	if s.Src.InFile("judge.prompt") {
		path = s.BesideSettings(path)
	}
	data, err := userfile.Read(path, userfile.Default)
	if err != nil {
		return nil, fmt.Errorf("%s: judge.prompt: %w (want %s, %s or a template file)",
			s.Src.Where("judge.prompt"), err, llm.PromptGraded, llm.PromptHPN)
	}
	p, err := llm.NewPrompt(path, "", string(data), Or(s.Judge.MaxGrade, DefaultJudgeMaxGrade), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: judge.prompt: %w", s.Src.Where("judge.prompt"), err)
	}
	return p, nil
}

// JudgeStoreURL is the store judge-as-you-tune appends to and tune judge
// pool skips the labels of: dataset.labels when set, else the judge
// commands' store (LabelsURL).
func (s *Settings) JudgeStoreURL() string {
	if s.Dataset.Labels != "" {
		return s.StoreURL("dataset.labels", s.Dataset.Labels)
	}
	return s.LabelsURL()
}

// LLMConfig returns the LLM judge's configuration from the judge section,
// for dataset graded on 0..maxGrade; getenv reads judge.api_key_env (the
// key lands in APIKey). The caller adds the store and the redactor.
// Errors name the setting and where it was set (the user's input).
func (s *Settings) LLMConfig(dataset string, maxGrade int, getenv func(string) string) (llm.Config, error) {
	js := s.Judge
	var missing []string
	if js.URL == "" {
		missing = append(missing, "judge.url (the server's base URL)")
	}
	if js.Model == "" {
		missing = append(missing, "judge.model")
	}
	if len(missing) > 0 {
		return llm.Config{}, fmt.Errorf("%s: the llm judge needs %s", s.Src.Where("judge"), strings.Join(missing, " and "))
	}
	key := ""
	if js.APIKeyEnv != "" {
		if key = getenv(js.APIKeyEnv); key == "" {
			return llm.Config{}, fmt.Errorf("%s: judge.api_key_env: the environment variable %s is not set", s.Src.Where("judge.api_key_env"), js.APIKeyEnv)
		}
	}
	prompt, err := s.JudgePrompt()
	if err != nil {
		return llm.Config{}, err
	}
	if prompt.MaxGrade > maxGrade {
		return llm.Config{}, fmt.Errorf("%s: judge.prompt: the prompt %s grades 0..%d, the golden set's scale is 0..%d (use prompt hpn for 0..2, or a template file with judge.max_grade %d)",
			s.Src.Where("judge.prompt"), prompt.Name, prompt.MaxGrade, maxGrade, maxGrade)
	}
	return llm.Config{
		Dataset: dataset, URL: js.URL, Model: js.Model, APIKey: key, Prompt: prompt,
		Batch:         Or(js.Batch, llm.DefaultBatch),
		Concurrency:   Or(js.Concurrency, llm.DefaultConcurrency),
		Timeout:       Or(js.Timeout, llm.DefaultTimeout),
		Retries:       Or(js.Retries, llm.DefaultRetries),
		AnswerRetries: Or(js.AnswerRetries, llm.DefaultAnswerRetries),
		Backoff:       llm.DefaultBackoff,
		MaxDocChars:   Or(js.MaxDocChars, llm.DefaultMaxDocChars),
		Budget:        llm.Budget{Calls: Or(js.Budget.Calls, 0), Tokens: Or(js.Budget.Tokens, 0)},
		Seed:          uint64(Or(js.Seed, 1)),
	}, nil
}
