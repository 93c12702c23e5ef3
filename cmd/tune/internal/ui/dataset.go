package ui

import (
	"net/http"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/tuner/scoring"

	"github.com/fusiontune/fusiontune/runs"
)

// datasetRow is one query on the dataset page.
type datasetRow struct {
	ID, Text, Category string
	Judged, Relevant   int
	JudgedAt10         string // of the best trial of the latest run, "—" unknown
}

// categoryRow is one category with its queries.
type categoryRow struct {
	Name    string
	Queries []datasetRow
	Judged  int
	Mean    string // mean Judged@10 of its queries
}

type datasetData struct {
	ID, Search   string
	Run, Trial   string
	Total, Shown int
	Categories   []categoryRow
	Err          string
}

// datasetPage lists the dataset's queries by category with their
// judgments and the Judged@10 of the latest run's best trial, filtered by
// a search over ids and texts.
func (s *Server) datasetPage(w http.ResponseWriter, r *http.Request) {
	d := datasetData{Search: strings.TrimSpace(r.FormValue("search"))}
	if s.o.Dataset == nil {
		d.Err = "no dataset configured"
		s.render(w, "dataset", "Dataset", d)
		return
	}
	d.ID = s.o.Dataset.DatasetID()
	judged := s.judgedAt10(&d)
	search := strings.ToLower(d.Search)
	byCat := map[string]*categoryRow{}
	sums := map[string][2]float64{}
	s.jmu.RLock()
	for _, q := range s.o.Dataset.Queries {
		d.Total++
		if search != "" && !strings.Contains(strings.ToLower(q.ID+" "+q.Text), search) {
			continue
		}
		d.Shown++
		row := newDatasetRow(q)
		if v, ok := judged[q.ID]; ok {
			row.JudgedAt10 = f2(v)
			s := sums[q.Category]
			sums[q.Category] = [2]float64{s[0] + v, s[1] + 1}
		}
		c := byCat[q.Category]
		if c == nil {
			c = &categoryRow{Name: q.Category}
			byCat[q.Category] = c
		}
		c.Queries = append(c.Queries, row)
		if row.Judged > 0 {
			c.Judged++
		}
	}
	s.jmu.RUnlock()
	for name, c := range byCat {
		c.Mean = "—"
		if s := sums[name]; s[1] > 0 {
			c.Mean = f2(s[0] / s[1])
		}
		d.Categories = append(d.Categories, *c)
	}
	sort.Slice(d.Categories, func(i, j int) bool { return d.Categories[i].Name < d.Categories[j].Name })
	s.render(w, "dataset", "Dataset "+d.ID, d)
}

// judgedAt10 is each query's Judged@10 in the best trial of the dataset's
// latest run (d.ID), naming that run and trial in d; empty when there is
// none.
func (s *Server) judgedAt10(d *datasetData) map[string]float64 {
	judged := map[string]float64{}
	run, entry, ok := s.latestBest(d.ID)
	if !ok {
		return judged
	}
	d.Run, d.Trial = run.ID(), entry.Name
	if res, err := run.QueryScores(entry.Index); err == nil {
		for _, q := range res {
			if v, ok := q.Scores[runs.WarnCoverage]; ok {
				judged[q.QueryID] = v
			}
		}
	}
	return judged
}

// newDatasetRow is q's row: its judgments and how many are relevant
// (grade > 0); Judged@10 not known yet (—).
func newDatasetRow(q scoring.Query) datasetRow {
	row := datasetRow{ID: q.ID, Text: q.Text, Category: q.Category, Judged: len(q.Judgments), JudgedAt10: "—"}
	for _, g := range q.Judgments {
		if g > 0 {
			row.Relevant++
		}
	}
	return row
}

// latestBest is the newest finished run on dataset id and its best trial.
func (s *Server) latestBest(id string) (*runs.Run, runs.Entry, bool) {
	list, _ := s.o.Store.List()
	for i := len(list) - 1; i >= 0; i-- {
		if dataset.RunDatasetID(list[i]) != id {
			continue
		}
		lb, err := list[i].ReadLeaderboard()
		if err != nil {
			continue
		}
		if e, ok := lb.Best(); ok {
			return list[i], e, true
		}
	}
	return nil, runs.Entry{}, false
}
