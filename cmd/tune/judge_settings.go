package main

import (
	"fmt"
	"os"
	"path/filepath"

	tunesettings "github.com/fusiontune/fusiontune/internal/settings"

	"github.com/fusiontune/fusiontune/experiments/judge/llm"
	"github.com/fusiontune/fusiontune/experiments/labels"
)

// Defaults of the judge commands.
const (
	defaultJudgePrompt  = llm.PromptGraded
	defaultJudgeMaxGrad = tunesettings.DefaultJudgeMaxGrade
	defaultLabelsFile   = "labels.db"
)

// intOr returns *p, or def when p is nil.
func intOr[T any](p *T, def T) T { return tunesettings.Or(p, def) }

// labelsURL returns the label store's URL for the judge commands: the
// labels setting, else dataset.labels, else labels.db beside the settings
// file (or in the working directory).
func (s *settings) labelsURL() string {
	switch {
	case s.Labels != "":
		return s.storeURL("labels", s.Labels)
	case s.Dataset.Labels != "":
		return s.storeURL("dataset.labels", s.Dataset.Labels)
	}
	return s.besideSettings(defaultLabelsFile)
}

// storeURL returns the store URL u set at key with a relative SQLite path
// resolved against the settings file's directory when it was written
// there, as every path setting is.
func (s *settings) storeURL(key, u string) string {
	loc, err := labels.ParseURL(u)
	if err != nil || loc.Dialect != labels.DialectSQLite || filepath.IsAbs(loc.DSN) || !s.Src.InFile(key) {
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
	if s.Src.InFile("judge.prompt") {
		path = s.besideSettings(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: judge.prompt: %w (want %s, %s or a template file)",
			s.Src.Where("judge.prompt"), err, llm.PromptGraded, llm.PromptHPN))
	}
	p, err := llm.NewPrompt(path, "", string(data), intOr(s.Judge.MaxGrade, defaultJudgeMaxGrad), nil)
	if err != nil {
		return nil, inputError(fmt.Errorf("%s: judge.prompt: %w", s.Src.Where("judge.prompt"), err))
	}
	return p, nil
}
