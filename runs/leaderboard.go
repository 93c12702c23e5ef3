package runs

import (
	"fmt"
	"math"
	"sort"
)

// Leaderboard ranks the trials of a run. Its JSON form (leaderboard.json) is
// deterministic: same trials, same bytes.
type Leaderboard struct {
	// Primary describes the primary score, e.g. the composite's formula.
	Primary string `json:"primary"`
	// Metrics lists the scorecard's metrics in display order.
	Metrics []string `json:"metrics"`
	// Baseline names the baseline trial, if the run had one.
	Baseline string  `json:"baseline,omitempty"`
	Trials   []Entry `json:"trials"`
	// Warnings are caveats about the results, carried as data.
	Warnings []string `json:"warnings,omitempty"`
}

// Entry is one trial's row.
type Entry struct {
	Rank    int            `json:"rank"`
	Name    string         `json:"name"`
	Params  map[string]any `json:"params"`
	Status  string         `json:"status"`
	Mode    string         `json:"mode"`
	Error   string         `json:"error,omitempty"`
	Primary float64        `json:"primary"`
	Delta   *float64       `json:"delta_vs_baseline,omitempty"`
	// Comparison is the paired comparison against the baseline.
	Comparison *Comparison `json:"vs_baseline,omitempty"`
	// CategoryIntervals holds the primary score per category with its
	// bootstrap interval.
	CategoryIntervals map[string]Interval           `json:"category_intervals,omitempty"`
	Scorecard         map[string]float64            `json:"scorecard"`
	Categories        map[string]map[string]float64 `json:"categories,omitempty"`
	Difficulties      map[string]map[string]float64 `json:"difficulties,omitempty"`
	Routing           *float64                      `json:"routing_accuracy,omitempty"`
	Queries           int                           `json:"queries"`
	Failed            int                           `json:"failed_queries,omitempty"`
	Index             int                           `json:"trial"`
	// Sampler and Fraction are the trial record's (sampled trials, pruning).
	Sampler  string  `json:"sampler,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
}

// NewLeaderboard orders trials best first: successful trials by primary
// score descending (ties by name), then pruned and failed ones by name.
func NewLeaderboard(primary string, metrics []string, trials []TrialRecord) Leaderboard {
	lb := Leaderboard{Primary: primary, Metrics: append([]string(nil), metrics...)}
	var base *TrialRecord
	for i := range trials {
		if trials[i].Baseline {
			base = &trials[i]
			lb.Baseline = trials[i].Name
		}
	}
	for _, t := range trials {
		e := Entry{
			Name: t.Name, Params: t.Params, Status: t.Status, Mode: t.Mode, Error: t.Error,
			Primary: round(t.Primary), Scorecard: roundMap(t.Scorecard),
			Categories: roundNested(t.Categories), Difficulties: roundNested(t.Difficulties),
			Queries: t.Queries, Failed: t.Failed, Index: t.Index,
			Sampler: t.Sampler, Fraction: round(t.Fraction),
		}
		if t.Routing != nil {
			v := round(*t.Routing)
			e.Routing = &v
		}
		if base != nil && base.Status == StatusOK && t.Status == StatusOK {
			d := round(t.Primary - base.Primary)
			e.Delta = &d
		}
		lb.Trials = append(lb.Trials, e)
	}
	order := func(s string) int {
		switch s {
		case StatusOK:
			return 0
		case StatusPruned:
			return 1
		}
		return 2
	}
	sort.SliceStable(lb.Trials, func(i, j int) bool {
		a, b := lb.Trials[i], lb.Trials[j]
		if order(a.Status) != order(b.Status) {
			return order(a.Status) < order(b.Status)
		}
		if a.Status == StatusOK && a.Primary != b.Primary {
			return a.Primary > b.Primary
		}
		return a.Name < b.Name
	})
	for i := range lb.Trials {
		lb.Trials[i].Rank = i + 1
	}
	return lb
}

// Best returns the best successful entry, or false when none succeeded.
func (lb Leaderboard) Best() (Entry, bool) {
	if len(lb.Trials) == 0 || lb.Trials[0].Status != StatusOK {
		return Entry{}, false
	}
	return lb.Trials[0], true
}

// Find returns the entry named name.
func (lb Leaderboard) Find(name string) (Entry, error) {
	for _, e := range lb.Trials {
		if e.Name == name || fmt.Sprint(e.Index) == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("runs: no trial %q in the leaderboard", name)
}

// Scores are rounded to 1e-12 before they are written, so that harmless
// floating-point noise (summation order across CPUs) cannot change bytes.
func round(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	r := math.Round(v*1e12) / 1e12
	if r == 0 {
		return 0 // no negative zero
	}
	return r
}

func roundMap(m map[string]float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round(v)
	}
	return out
}

func roundNested(m map[string]map[string]float64) map[string]map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]map[string]float64, len(m))
	for k, v := range m {
		out[k] = roundMap(v)
	}
	return out
}
