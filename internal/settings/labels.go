package settings

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fusiontune/fusiontune/experiments/judge/llm"
	"github.com/fusiontune/fusiontune/experiments/labels"
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
	data, err := os.ReadFile(path)
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
