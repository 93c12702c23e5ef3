package main_test

import (
	"strings"
	"testing"
)

// contextPrompt is the manual's example template (docs/judging.md): the
// query's category, notes, rubric and reference passages, then the
// documents as the shipped prompts show them.
const contextPrompt = `Query: {{.Query}}
{{if .Category}}Category: {{.Category}}
{{end}}{{if .Notes}}Notes from the golden set: {{.Notes}}
{{end}}{{if .Rubric}}Rubric for this category: {{.Rubric}}
{{end}}{{range .References}}A passage known to answer the query fully:
> {{.}}
{{end}}
Grade each document below for the query from 0 (irrelevant) to {{.MaxGrade}} (answers it fully).

{{range .Docs}}[{{.ID}}]{{if .Title}} {{.Title}}{{end}}
{{.Text}}

{{end}}Answer with one JSON object and nothing else:
{"judgments": [{"id": "<the document's id in brackets>", "grade": <0-{{.MaxGrade}}>, "reason": "<at most 15 words>"}]}
`

// TestJudgeContext: a template showing the query's context gets, for q001
// of the demo, its category, its notes, the rubric judge.rubrics gives
// the category and the title and text of its top-graded document
// (kb-0028) as a reference.
func TestJudgeContext(t *testing.T) {
	e, srv := newJudgeEnv(t, "  prompt: context.tmpl\n  max_grade: 3\n  rubrics:\n    direct: Grade 3 only when the document names the exact procedure.\n")
	e.write("context.tmpl", contextPrompt)
	e.mustRun(0, "judge", "run", "--pool", "pool.jsonl", "--judge", "llm")
	var q001 string
	for _, p := range srv.Prompts() {
		if strings.HasPrefix(p, "Query: how to top up boiler pressure with the filling loop\n") {
			q001 = p
		}
	}
	for _, want := range []string{
		"Category: direct\n",
		"Notes from the golden set: Shares filling loop / pressure / top up with kb-0028.\n",
		"Rubric for this category: Grade 3 only when the document names the exact procedure.\n",
		"A passage known to answer the query fully:\n> Boiler pressure is too low\nYour boiler's pressure gauge should read between 1 and 1.5 bar",
	} {
		if !strings.Contains(q001, want) {
			t.Errorf("q001's prompt lacks %q:\n%s", want, q001)
		}
	}
	if strings.Count(q001, "A passage known to answer the query fully") != 1 {
		t.Errorf("q001 has one top-graded judgment (kb-0028):\n%s", q001)
	}
}
