package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrBadAnswer is wrapped by every error about a model answer that is not
// the JSON the prompt asked for.
var ErrBadAnswer = errors.New("malformed model answer")

// grading is one document's grade as parsed from an answer.
type grading struct {
	Grade      int
	Reason     string
	Confidence float64
}

// answerItem is one entry of an answer's "judgments".
type answerItem struct {
	ID         json.RawMessage `json:"id"`
	Grade      json.RawMessage `json:"grade"`
	Reason     string          `json:"reason"`
	Confidence *float64        `json:"confidence"`
}

// parseAnswer parses a model's answer content for the documents ids (the
// short ids the prompt showed): {"judgments": [{"id","grade","reason",
// "confidence"?}]} (or the bare list), possibly inside a ```json fence or
// after some words. Every id must be graded exactly once on the prompt's
// scale.
func parseAnswer(content string, ids []string, p *Prompt) (map[string]grading, error) {
	items, err := answerItems(content)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]grading{}
	var problems []string
	for i, it := range items {
		id := strings.Trim(scalar(it.ID), "[] ")
		if !want[id] {
			problems = append(problems, fmt.Sprintf("entry %d: id %q is not one of the documents shown (%s)", i+1, scalar(it.ID), strings.Join(ids, ", ")))
			continue
		}
		if _, dup := out[id]; dup {
			problems = append(problems, fmt.Sprintf("entry %d: document %s graded twice", i+1, id))
			continue
		}
		gr, err := it.grading(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("entry %d (%s): %v", i+1, id, err))
			continue
		}
		out[id] = gr
	}
	var missing []string
	for _, id := range ids {
		if _, ok := out[id]; !ok && !mentioned(problems, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("no grade for %s", strings.Join(missing, ", ")))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrBadAnswer, strings.Join(problems, "; "))
	}
	return out, nil
}

// answerItems finds the first JSON value in content and reads its
// entries: {"judgments": [...]} or the bare list. Anything else is
// ErrBadAnswer saying what was wanted.
func answerItems(content string) ([]answerItem, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadAnswer, fmt.Sprintf(format, args...))
	}
	start := strings.IndexAny(content, "{[")
	if start < 0 {
		return nil, bad(`no JSON in the answer (want {"judgments": [{"id", "grade", "reason"}]})`)
	}
	dec := json.NewDecoder(strings.NewReader(content[start:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, bad("the answer's JSON does not parse: %v", err)
	}
	if raw[0] == '[' {
		var items []answerItem
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, bad("the answer's list is not of {\"id\", \"grade\"} objects: %v", err)
		}
		return items, nil
	}
	var obj struct {
		Judgments *[]answerItem `json:"judgments"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, bad(`want {"judgments": [{"id", "grade", "reason"}]}: %v`, err)
	}
	if obj.Judgments == nil {
		return nil, bad(`no "judgments" list in the answer`)
	}
	return *obj.Judgments, nil
}

// grading is the entry's grade on the prompt's scale, its reason trimmed,
// and its confidence, which must lie in [0, 1] when given.
func (it answerItem) grading(p *Prompt) (grading, error) {
	g, err := parseGrade(it.Grade, p)
	if err != nil {
		return grading{}, err
	}
	gr := grading{Grade: g, Reason: strings.TrimSpace(it.Reason)}
	if it.Confidence != nil {
		c := *it.Confidence
		if math.IsNaN(c) || c < 0 || c > 1 {
			return grading{}, fmt.Errorf("confidence %v outside [0, 1]", c)
		}
		gr.Confidence = c
	}
	return gr, nil
}

// mentioned reports whether a problem already names document id.
func mentioned(problems []string, id string) bool {
	for _, p := range problems {
		if strings.Contains(p, "("+id+")") || strings.Contains(p, "document "+id+" ") {
			return true
		}
	}
	return false
}

// scalar renders a JSON scalar as text: a string's value, a number's digits.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// parseGrade reads a grade: an integer (or a string holding one) on the
// prompt's scale, or one of its grade words.
func parseGrade(raw json.RawMessage, p *Prompt) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, errors.New("no grade")
	}
	s := strings.TrimSpace(scalar(raw))
	if g, ok := p.Names[strings.ToUpper(strings.ReplaceAll(s, " ", "_"))]; ok {
		return g, nil
	}
	g, err := strconv.Atoi(s)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) {
			g, err = int(f), nil
		}
	}
	if err != nil || g < 0 || g > p.MaxGrade {
		want := fmt.Sprintf("an integer 0..%d", p.MaxGrade)
		if len(p.Names) > 0 {
			want += " or " + strings.Join(sortedWords(p.Names), ", ")
		}
		return 0, fmt.Errorf("grade %s: want %s", string(raw), want)
	}
	return g, nil
}

func sortedWords(m map[string]int) []string {
	var w []string
	for k := range m {
		w = append(w, k)
	}
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && m[w[j]] > m[w[j-1]]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
	return w
}
