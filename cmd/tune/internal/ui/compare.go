package ui

import (
	"net/http"

	"github.com/fusiontune/fusiontune/tuner/analysis"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

type compareData struct {
	A, B    string
	Choices []string // RUN:TRIAL of the runs' trials, newest run first
	C       *runs.TrialComparison
	Err     string
}

// maxChoices bounds the trials the compare page offers in its lists.
const maxChoices = 500

// comparePage compares trial B against trial A (RUN:TRIAL each, as tune
// compare takes them): paired statistics, per-category deltas, ranking
// diffs and the queries that changed most.
func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	d := compareData{A: r.FormValue("a"), B: r.FormValue("b")}
	list, _ := s.o.Store.List()
	for i := len(list) - 1; i >= 0 && len(d.Choices) < maxChoices; i-- {
		lb, err := list[i].ReadLeaderboard()
		if err != nil {
			continue
		}
		for _, e := range lb.Trials {
			if e.Status == runs.StatusOK {
				d.Choices = append(d.Choices, list[i].ID()+":"+e.Name)
			}
		}
	}
	if d.A == "" || d.B == "" {
		s.render(w, "compare", "Compare", d)
		return
	}
	c, err := s.compare(r, d.A, d.B)
	if err != nil {
		d.Err = err.Error()
	} else {
		d.C = &c
	}
	s.render(w, "compare", "Compare", d)
}

func (s *Server) compare(r *http.Request, a, b string) (runs.TrialComparison, error) {
	for _, ref := range []string{a, b} {
		if _, err := s.resolve(runPart(ref)); err != nil {
			return runs.TrialComparison{}, err
		}
	}
	ra, ea, err := runs.ResolveTrial(s.o.Store, a)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	rb, eb, err := runs.ResolveTrial(s.o.Store, b)
	if err != nil {
		return runs.TrialComparison{}, err
	}
	seed := ra.Manifest.Seed
	if seed == 0 {
		seed = experiments.DefaultSeed
	}
	o := analysis.CompareOptions{}
	if s.o.Compare != nil {
		o = s.o.Compare(seed)
	} else {
		o.Stats.Seed = seed
	}
	return analysis.CompareRunsContext(r.Context(), ra, ea, rb, eb, o)
}

// runPart is the run of a RUN:TRIAL reference.
func runPart(ref string) string {
	for i := range len(ref) {
		if ref[i] == ':' {
			return ref[:i]
		}
	}
	return ref
}
