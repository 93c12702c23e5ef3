package judge

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// Comparison is the agreement of every judge under test with the
// reference (the golden set's judgments merged with people's labels).
type Comparison struct {
	// Reference names the reference: "gold", or "gold/human" when people
	// labelled pairs too.
	Reference string
	// Reports holds one report per judge, by judge name; empty when no
	// label of a judge under test was found.
	Reports []Report
}

// Compare measures the judges of the latest labels ls against the
// reference: gold (query -> doc -> grade) merged with the human and gold
// labels among ls (gold wins). The judges under test are name's when name
// is not "", else every llm judge. categories maps query ids to their
// category; byCategory adds a row per category; grades are on 0..maxGrade.
func Compare(ls []labels.Label, gold map[string]map[string]int, categories map[string]string, name string, maxGrade int, byCategory bool) Comparison {
	var human []labels.Label
	var judges []string
	for _, l := range ls {
		if l.Source == labels.SourceHuman || l.Source == labels.SourceGold {
			human = append(human, l)
		}
		if (name == "" && l.Source == labels.SourceLLM || l.Judge == name) && !slices.Contains(judges, l.Judge) {
			judges = append(judges, l.Judge)
		}
	}
	slices.Sort(judges)
	c := Comparison{Reference: "gold"}
	if len(human) > 0 {
		c.Reference = "gold/human"
	}
	if len(judges) == 0 {
		return c
	}
	ref, _ := labels.Effective(gold, human)
	for _, j := range judges {
		c.Reports = append(c.Reports, NewReport(j, Ratings(ref, ls, j, categories), maxGrade, byCategory))
	}
	return c
}

// WriteJSON writes c as one indented JSON object naming dataset, the
// reference and the headline statistic.
func (c Comparison) WriteJSON(w io.Writer, dataset string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"dataset": dataset, "reference": c.Reference, "headline": "kappa_quadratic", "judges": c.Reports})
}

// WriteText writes every report as text, separated by blank lines.
func (c Comparison) WriteText(w io.Writer) error {
	for i, r := range c.Reports {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := r.WriteText(w, c.Reference); err != nil {
			return err
		}
	}
	return nil
}
