package ui

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
)

// poolQuery is one query of the pool with its coverage.
type poolQuery struct {
	ID, Text          string
	Labelled, Total   int
	Current, Complete bool
}

type poolData struct {
	File, Judge, Err, Saved string
	Query                   scoring.Query
	Prev, Next              string // neighbouring queries, unlabelled pairs first
	Hits                    []judgeHit
	Grades                  []int
	Rubric                  []string // what each grade means (rubric), by grade
	Queries                 []poolQuery
	Labelled, Total         int
	QueryLabelled           int
	Undo                    *undoEntry
	// Unfinished lists only the queries with pairs left to label (and
	// the current one) in the sidebar.
	Unfinished bool
}

// scale is the golden set's grade scale (the default 0..3 without one).
func (s *Server) scale() experiments.Scale {
	if s.o.Dataset != nil && s.o.Dataset.Golden != nil {
		return s.o.Dataset.Golden.Scale
	}
	return experiments.DefaultScale()
}

// poolPage shows one query of the pool (`tune ui --pool FILE`): its pairs'
// documents with the query terms highlighted and grade buttons, every
// query's coverage (labelled of pooled) and the pool's.
func (s *Server) poolPage(w http.ResponseWriter, r *http.Request) {
	d := poolData{File: s.o.PoolFile, Saved: r.FormValue("saved"), Judge: s.judgeName(r), Unfinished: r.FormValue("unfinished") == "1"}
	switch {
	case s.o.Pool == nil:
		d.Err = "no pool: start the app with tune ui --pool FILE (a file tune judge pool wrote)"
	case s.o.Labels == "" || s.o.Dataset == nil:
		d.Err = "no label store or dataset configured (the labels and dataset settings): judging is off"
	}
	if d.Err != "" {
		s.render(w, "pool", "Judge the pool", d)
		return
	}
	stored, err := s.storedLabels(r.Context())
	if err != nil {
		d.Err = err.Error()
		s.render(w, "pool", "Judge the pool", d)
		return
	}
	for g := 0; g <= s.scale().Max; g++ {
		d.Grades = append(d.Grades, g)
		d.Rubric = append(d.Rubric, rubric(s.scale(), g))
	}
	s.poolCoverage(&d, stored, r.FormValue("q"))
	if d.Query.ID == "" {
		d.Err = fmt.Sprintf("query %q: not in the pool", r.FormValue("q"))
		s.render(w, "pool", "Judge the pool", d)
		return
	}
	terms := queryTerms(d.Query.Text)
	for _, p := range s.o.Pool {
		if p.Query != d.Query.ID {
			continue
		}
		g, by := s.gradeOf(d.Query, p.Doc, stored)
		h := judgeHit{Rank: len(d.Hits) + 1, Doc: p.Doc, Grade: g, By: by, Title: highlight(p.DocTitle, terms), Segments: highlight(p.DocText, terms)}
		d.Hits = append(d.Hits, h)
	}
	d.Undo = s.lastLabel(d.Judge)
	s.render(w, "pool", "Judge "+d.Query.ID, d)
}

// poolCoverage fills d's per-query and overall coverage, picks the query
// (want, else the first with an unlabelled pair, else the first) and its
// neighbours.
func (s *Server) poolCoverage(d *poolData, stored map[string]map[string]labels.Label, want string) {
	at := map[string]int{}
	for _, p := range s.o.Pool {
		i, ok := at[p.Query]
		if !ok {
			i = len(d.Queries)
			at[p.Query] = i
			d.Queries = append(d.Queries, poolQuery{ID: p.Query, Text: p.QueryText})
		}
		pq := &d.Queries[i]
		pq.Total++
		q, _ := s.query(p.Query)
		if g, _ := s.gradeOf(q, p.Doc, stored); g >= 0 {
			pq.Labelled++
		}
	}
	pos := -1
	for i := range d.Queries {
		pq := &d.Queries[i]
		pq.Complete = pq.Labelled == pq.Total
		d.Labelled += pq.Labelled
		d.Total += pq.Total
		if pq.ID == want || want == "" && pos < 0 && !pq.Complete {
			pos = i
		}
	}
	if want == "" && pos < 0 && len(d.Queries) > 0 {
		pos = 0
	}
	if pos < 0 {
		return
	}
	d.Queries[pos].Current = true
	d.QueryLabelled = d.Queries[pos].Labelled
	d.Query, _ = s.query(d.Queries[pos].ID)
	if pos > 0 {
		d.Prev = d.Queries[pos-1].ID
	}
	if pos+1 < len(d.Queries) {
		d.Next = d.Queries[pos+1].ID
	}
}

// poolURL is the pool page of query q.
func poolURL(q, saved string) string {
	v := url.Values{"q": {q}}
	if saved != "" {
		v.Set("saved", saved)
	}
	return "/judge/pool?" + v.Encode()
}
