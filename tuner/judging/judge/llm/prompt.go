package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
)

// Prompt is a prompt template and the grade scale its answers use.
type Prompt struct {
	// Name is "graded", "hpn" or the template file's path.
	Name string
	// System is the system message.
	System string
	// Text is the user message's text/template source; it is executed
	// with TemplateData.
	Text string
	// MaxGrade is the top grade answers may give (1..100).
	MaxGrade int
	// Names maps grade words an answer may use ("HIGH") to grades.
	Names map[string]int

	tmpl *template.Template
}

// TemplateData is what a prompt template is executed with.
type TemplateData struct {
	// Query is the query text.
	Query string
	// Docs are the documents, in presentation order.
	Docs []TemplateDoc
	// MaxGrade is the prompt's top grade.
	MaxGrade int
	// Category and Notes are the query's, from the golden set; Rubric is
	// its category's rubric (judge.rubrics); References are the texts of
	// its top-graded judgments (a passage's excerpt, a document's text,
	// at most MaxReferences, each truncated as documents are). Each is
	// empty when unknown.
	Category, Notes, Rubric string
	References              []string
}

// MaxReferences is the most reference passages a prompt is shown.
const MaxReferences = 3

// contextFields are the template fields that carry a query's context:
// a template using any of them makes the context part of the answer
// cache's key.
var contextFields = []string{".Category", ".Notes", ".Rubric", ".References"}

// UsesContext reports whether the template shows the query's context.
func (p *Prompt) UsesContext() bool {
	for _, f := range contextFields {
		if strings.Contains(p.Text, f) {
			return true
		}
	}
	return false
}

// TemplateDoc is one document as the prompt shows it: ID is the short id
// the answer must use ("D1"), Text at most the judge's MaxDocChars.
type TemplateDoc struct {
	ID, Title, Text string
}

// systemMessage is the shipped prompts' system message.
const systemMessage = "You are a search quality rater. You judge how well documents answer a search query. You answer with JSON only."

// gradedText is the 4-tier prompt (grades 3..0).
const gradedText = `Query: {{.Query}}

Grade each document below for the query on this scale:
3 = fully relevant: the document is dedicated to the query and answers it completely.
2 = mostly relevant: the document answers the query, but partly or mixed with other material.
1 = weakly relevant: the document is on the query's topic but does not answer it.
0 = irrelevant: the document has nothing to do with the query.

{{range .Docs}}[{{.ID}}]{{if .Title}} {{.Title}}{{end}}
{{.Text}}

{{end}}Answer with one JSON object and nothing else:
{"judgments": [{"id": "<the document's id in brackets>", "grade": <0-3>, "reason": "<at most 15 words>"}]}
with one entry for each of the {{len .Docs}} documents.
`

// hpnText is the high / partial / not relevant prompt (grades 2..0).
const hpnText = `Query: {{.Query}}

Rate each document below for the query:
HIGH = the document answers the query.
PARTIAL = the document answers part of the query, or is closely related to it.
NOT_RELEVANT = the document does not help with the query.

{{range .Docs}}[{{.ID}}]{{if .Title}} {{.Title}}{{end}}
{{.Text}}

{{end}}Answer with one JSON object and nothing else:
{"judgments": [{"id": "<the document's id in brackets>", "grade": "HIGH" | "PARTIAL" | "NOT_RELEVANT", "reason": "<at most 15 words>"}]}
with one entry for each of the {{len .Docs}} documents.
`

// Names of the shipped prompts.
const (
	PromptGraded = "graded"
	PromptHPN    = "hpn"
)

// Builtin returns a shipped prompt by name.
func Builtin(name string) (*Prompt, error) {
	switch name {
	case PromptGraded:
		return NewPrompt(PromptGraded, systemMessage, gradedText, 3, nil)
	case PromptHPN:
		return NewPrompt(PromptHPN, systemMessage, hpnText, 2, map[string]int{"HIGH": 2, "PARTIAL": 1, "NOT_RELEVANT": 0})
	}
	return nil, fmt.Errorf("prompt %q: not a shipped prompt (want %s or %s, or a template file)", name, PromptGraded, PromptHPN)
}

// NewPrompt parses a prompt template (text/template over TemplateData)
// answering on grades 0..maxGrade (1..100), with optional grade words.
// The system message is the shipped one when system is "".
func NewPrompt(name, system, text string, maxGrade int, names map[string]int) (*Prompt, error) {
	if maxGrade < 1 || maxGrade > 100 {
		return nil, fmt.Errorf("prompt %s: max grade must be in [1, 100] (got %d)", name, maxGrade)
	}
	for w, g := range names {
		if g < 0 || g > maxGrade {
			return nil, fmt.Errorf("prompt %s: grade word %q means %d, outside 0..%d", name, w, g, maxGrade)
		}
	}
	if system == "" {
		system = systemMessage
	}
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", name, err)
	}
	p := &Prompt{Name: name, System: system, Text: text, MaxGrade: maxGrade, Names: names, tmpl: t}
	// A template that fails on sample data (a field TemplateData lacks)
	// fails here, before any call.
	if _, err := p.Render(TemplateData{Query: "q", Docs: []TemplateDoc{{ID: "D1", Title: "t", Text: "x"}}, MaxGrade: maxGrade,
		Category: "c", Notes: "n", Rubric: "r", References: []string{"p"}}); err != nil {
		return nil, err
	}
	return p, nil
}

// Render executes the template.
func (p *Prompt) Render(d TemplateData) (string, error) {
	var b bytes.Buffer
	if err := p.tmpl.Execute(&b, d); err != nil {
		return "", fmt.Errorf("prompt %s: %w", p.Name, err)
	}
	return b.String(), nil
}

// Hash is the hex SHA-256 of everything that shapes the prompt's answers:
// the system message, the template, the scale and the grade words. Judge
// names carry its first 8 characters; the answer cache is keyed by it.
func (p *Prompt) Hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s\n%d:%s\n%d\n", len(p.System), p.System, len(p.Text), p.Text, p.MaxGrade)
	words := make([]string, 0, len(p.Names))
	for w, g := range p.Names {
		words = append(words, w+"="+strconv.Itoa(g))
	}
	slices.Sort(words)
	fmt.Fprintf(h, "%s\n", strings.Join(words, ","))
	return hex.EncodeToString(h.Sum(nil))
}
