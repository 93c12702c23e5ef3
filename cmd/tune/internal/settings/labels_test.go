package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
)

// TestLabelStoreURLs: the label store URLs resolve relative SQLite paths
// written in the settings file against its directory, leave postgres URLs
// alone, and fall back from labels to dataset.labels to labels.db.
func TestLabelStoreURLs(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) *Settings {
		t.Helper()
		file := filepath.Join(dir, "tune.yaml")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := load(file)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name, body, labels, judgeStore string
	}{
		{"none set", "{}\n", filepath.Join(dir, "labels.db"), filepath.Join(dir, "labels.db")},
		{"labels", "labels: store/l.db\n", filepath.Join(dir, "store/l.db"), filepath.Join(dir, "store/l.db")},
		{"dataset.labels", "dataset: {labels: d.db}\n", filepath.Join(dir, "d.db"), filepath.Join(dir, "d.db")},
		{"both", "labels: postgres://u@127.0.0.1:5432/x\ndataset: {labels: d.db}\n", "postgres://u@127.0.0.1:5432/x", filepath.Join(dir, "d.db")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := write(tc.body)
			if got := s.LabelsURL(); got != tc.labels {
				t.Errorf("LabelsURL = %q, want %q", got, tc.labels)
			}
			if got := s.JudgeStoreURL(); got != tc.judgeStore {
				t.Errorf("JudgeStoreURL = %q, want %q", got, tc.judgeStore)
			}
		})
	}
}

// TestJudgePrompt: shipped prompts by name, a template file beside the
// settings file, and an error naming judge.prompt for a missing file.
func TestJudgePrompt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tune.yaml")
	for _, tc := range []struct{ prompt, want string }{{"", llm.PromptGraded}, {llm.PromptHPN, llm.PromptHPN}} {
		s := &Settings{Judge: Judge{Prompt: tc.prompt}, Src: &Source{}}
		p, err := s.JudgePrompt()
		if err != nil || p.Name != tc.want {
			t.Errorf("prompt %q: %v, %v; want %s", tc.prompt, p, err, tc.want)
		}
	}
	if err := os.WriteFile(file, []byte("judge: {prompt: missing.tmpl}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := load(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.JudgePrompt(); err == nil || !strings.Contains(err.Error(), "judge.prompt: ") || !strings.Contains(err.Error(), filepath.Join(dir, "missing.tmpl")) {
		t.Errorf("missing template file: %v, want an error on judge.prompt naming %s", err, filepath.Join(dir, "missing.tmpl"))
	}
}

// TestLLMConfig: the judge section becomes the llm judge's configuration,
// or an error naming the setting that is missing or does not fit.
func TestLLMConfig(t *testing.T) {
	env := map[string]string{"KEY": "sk-1"}
	getenv := func(k string) string { return env[k] }
	batch := 7
	tests := []struct {
		name     string
		judge    Judge
		maxGrade int
		err      string
	}{
		{name: "complete", judge: Judge{URL: "http://127.0.0.1:1", Model: "m", APIKeyEnv: "KEY", Batch: &batch}, maxGrade: 3},
		{name: "no url nor model", maxGrade: 3, err: "the llm judge needs judge.url (the server's base URL) and judge.model"},
		{name: "key variable unset", judge: Judge{URL: "u", Model: "m", APIKeyEnv: "NOPE"}, maxGrade: 3, err: "judge.api_key_env: the environment variable NOPE is not set"},
		{name: "prompt grades above the scale", judge: Judge{URL: "u", Model: "m"}, maxGrade: 2, err: "judge.prompt: the prompt graded grades 0..3, the golden set's scale is 0..2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Settings{Judge: tc.judge, Src: &Source{}}
			c, err := s.LLMConfig("demo", tc.maxGrade, getenv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("LLMConfig error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || c.Dataset != "demo" || c.APIKey != "sk-1" || c.Batch != 7 || c.Concurrency != llm.DefaultConcurrency || c.Seed != 1 || c.Prompt.Name != llm.PromptGraded {
				t.Fatalf("LLMConfig = %+v, %v", c, err)
			}
		})
	}
}
