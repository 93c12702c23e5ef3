package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
)

type failureView struct {
	Best    string
	Trials  []failedTrial
	Errors  []queryError // queries of the best trial whose search failed
	Worst   []worstQuery
	Scored  int
	TopDocs int
}

type failedTrial struct {
	Name, Status, Error string
}

type queryError struct {
	ID, Error string
}

type worstQuery struct {
	ID, Text, Category, Primary, Labels string
	Routing                             string
	Top                                 []docView
	Strip                               []labelCell // Labels as cells; nil when unparsable
}

// labelCell is one rank of a query's label sequence ("3:L2").
type labelCell struct {
	Rank, Grade, Class string
}

// gradeClass is the css class of grade g on a scale whose top grade is
// maxGrade: g0..g3, the grade scaled to 0-3 (the identity on 0-3).
func gradeClass(g, maxGrade int) string {
	if maxGrade <= 0 {
		maxGrade = 3
	}
	return "g" + strconv.Itoa(min((3*max(g, 0)+maxGrade/2)/maxGrade, 3))
}

// parseLabels splits a label sequence "1:L3 | 2:L? | 3:L0" into cells, each
// grade's class on the scale whose top grade is maxGrade; it returns nil
// for anything else, and the raw text is shown instead.
func parseLabels(s string, maxGrade int) []labelCell {
	if s == "" {
		return nil
	}
	var out []labelCell
	for _, part := range strings.Split(s, " | ") {
		rank, grade, ok := strings.Cut(part, ":L")
		if !ok || rank == "" || grade == "" {
			return nil
		}
		c := labelCell{Rank: rank, Grade: grade, Class: "unjudged"}
		if grade != "?" {
			g, err := strconv.Atoi(grade)
			if err != nil || g < 0 {
				return nil
			}
			c.Class = gradeClass(g, maxGrade)
		}
		out = append(out, c)
	}
	return out
}

type docView struct {
	Rank  int
	ID    string
	Grade string
	Class string // css class: g0..g3 or unjudged
}

// newFailureView lists the failed trials with their errors and the best
// trial's worst queries (lowest primary score first, ties by query id)
// with their top results and grades.
func newFailureView(lb runs.Leaderboard, best runs.Entry, hasBest bool, queries []runs.QueryResult, g golden, o Options) failureView {
	v := failureView{TopDocs: o.TopDocs}
	for _, e := range lb.Trials {
		if e.Status == runs.StatusFailed {
			v.Trials = append(v.Trials, failedTrial{Name: e.Name, Status: e.Status, Error: e.Error})
		}
	}
	if !hasBest {
		return v
	}
	v.Best = best.Name
	var scored []runs.QueryResult
	for _, q := range queries {
		if q.Error != "" {
			v.Errors = append(v.Errors, queryError{ID: q.QueryID, Error: q.Error})
			continue
		}
		if g.scored(q, best.Categories) {
			scored = append(scored, q)
		}
	}
	v.Scored = len(scored)
	sort.SliceStable(scored, func(i, j int) bool {
		if scored[i].Primary != scored[j].Primary {
			return scored[i].Primary < scored[j].Primary
		}
		return scored[i].QueryID < scored[j].QueryID
	})
	if len(scored) > o.Worst {
		scored = scored[:o.Worst]
	}
	for _, q := range scored {
		w := worstQuery{ID: q.QueryID, Text: g.text[q.QueryID], Category: q.Category, Primary: f4(q.Primary), Labels: q.Labels, Strip: parseLabels(q.Labels, g.maxGrade)}
		if q.Expected != "" && q.Routing != q.Expected {
			w.Routing = fmt.Sprintf("routed %q, expected %q", q.Routing, q.Expected)
		}
		for i, d := range q.Top {
			if i >= o.TopDocs {
				break
			}
			dv := docView{Rank: i + 1, ID: d.DocID, Grade: "unjudged", Class: "unjudged"}
			if d.Grade >= 0 {
				dv.Grade = fmt.Sprintf("grade %d", d.Grade)
				dv.Class = gradeClass(d.Grade, g.maxGrade)
			}
			w.Top = append(w.Top, dv)
		}
		v.Worst = append(v.Worst, w)
	}
	return v
}

// golden is what the report takes from the run's golden-set snapshot.
type golden struct {
	text     map[string]string
	judged   map[string]bool // nil when unknown
	maxGrade int             // the grade scale's top grade; 0 when unknown (3)
}

// readGolden reads query texts and which queries carry judgments from the
// run's golden-set snapshot (golden.json, the native format). Other
// formats, or none, give nothing: the report then shows query ids only.
//
// The top grade of the scale comes from the snapshot's
// golden.json.sha256.json ("grades"), for any format.
func readGolden(dir string) golden {
	maxGrade := 0
	if data, err := os.ReadFile(filepath.Join(dir, "golden.json.sha256.json")); err == nil {
		var info struct {
			Grades struct {
				Max int `json:"max"`
			} `json:"grades"`
		}
		if json.Unmarshal(data, &info) == nil {
			maxGrade = info.Grades.Max
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "golden.json"))
	if err != nil {
		return golden{maxGrade: maxGrade}
	}
	var g struct {
		Queries []struct {
			ID       string            `json:"id"`
			Query    string            `json:"query"`
			Passages []json.RawMessage `json:"expected_passages"`
		} `json:"queries"`
	}
	if json.Unmarshal(data, &g) != nil {
		return golden{maxGrade: maxGrade}
	}
	out := golden{text: map[string]string{}, judged: map[string]bool{}, maxGrade: maxGrade}
	for _, q := range g.Queries {
		out.text[q.ID] = q.Query
		out.judged[q.ID] = len(q.Passages) > 0
	}
	return out
}

// scored reports whether q counted in the trial's scores: queries without
// judgments (marked unjudged since the statistics step) are only checked
// for routing. Runs recorded before that are judged from the golden set,
// or, without one, by whether the query's category has a scorecard.
func (g golden) scored(q runs.QueryResult, cats map[string]map[string]float64) bool {
	if q.Unjudged {
		return false
	}
	if g.judged != nil {
		return g.judged[q.QueryID]
	}
	if len(cats) == 0 || q.Category == "" {
		return true
	}
	_, ok := cats[q.Category]
	return ok
}
