package llm

import (
	"strings"
	"testing"
)

// FuzzParseAnswer: any answer either parses to one grade on the scale for
// every document shown, or is an ErrBadAnswer; it never panics.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"judgments": [{"id": "D1", "grade": 3, "reason": "x"}, {"id": "D2", "grade": 0}]}`,
		"```json\n[{\"id\": \"D2\", \"grade\": \"1\"}, {\"id\": \"[D1]\", \"grade\": 2.0}]\n```",
		`{"judgments": [{"id": 1, "grade": "HIGH"}]}`, `{"judgments": null}`, `[`, "", "no json",
	} {
		f.Add(s)
	}
	p, err := Builtin(PromptHPN)
	if err != nil {
		f.Fatal(err)
	}
	ids := []string{"D1", "D2"}
	f.Fuzz(func(t *testing.T, content string) {
		got, err := parseAnswer(content, ids, p)
		if err != nil {
			if !strings.Contains(err.Error(), ErrBadAnswer.Error()) {
				t.Fatalf("error %v does not wrap ErrBadAnswer", err)
			}
			return
		}
		if len(got) != len(ids) {
			t.Fatalf("%d grades for %d documents", len(got), len(ids))
		}
		for id, g := range got {
			if g.Grade < 0 || g.Grade > p.MaxGrade || g.Confidence < 0 || g.Confidence > 1 {
				t.Fatalf("%s: %+v off the scale", id, g)
			}
		}
	})
}
