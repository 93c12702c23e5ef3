package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/internal/paramtext"
	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/runs/chart"
	"github.com/fusiontune/fusiontune/runs/report"
)

// runRow is one run on the runs page.
type runRow struct {
	runs.ListRow
	Dataset  string
	Date     string
	Promoted string // trial promoted from this run, "" none
}

type runsData struct {
	Rows                []runRow
	Datasets, Exps      []string
	Dataset, Experiment string
}

// runsPage lists the recorded runs, newest first, filtered by dataset and
// experiment.
func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.o.Store.List()
	if err != nil && len(list) == 0 {
		list = nil
	}
	promoted := s.promotedTrials()
	rows := runs.ListRows(list)
	d := runsData{Dataset: r.FormValue("dataset"), Experiment: r.FormValue("experiment")}
	seenD, seenE := map[string]bool{}, map[string]bool{}
	for i := len(list) - 1; i >= 0; i-- {
		run := list[i]
		row := runRow{ListRow: rows[i], Dataset: dataset.RunDatasetID(run), Date: run.Manifest.Started.UTC().Format("2006-01-02 15:04"),
			Promoted: promoted[run.ID()]}
		if !seenD[row.Dataset] {
			seenD[row.Dataset] = true
			d.Datasets = append(d.Datasets, row.Dataset)
		}
		if !seenE[row.Experiment] {
			seenE[row.Experiment] = true
			d.Exps = append(d.Exps, row.Experiment)
		}
		if (d.Dataset == "" || d.Dataset == row.Dataset) && (d.Experiment == "" || d.Experiment == row.Experiment) {
			d.Rows = append(d.Rows, row)
		}
	}
	sort.Strings(d.Datasets)
	sort.Strings(d.Exps)
	s.render(w, "runs", "Runs", d)
}

// promotion is one line of the runs directory's promotions.jsonl.
type promotion struct {
	Time   string         `json:"time"`
	Action string         `json:"action"`
	Run    string         `json:"run"`
	Trial  string         `json:"trial"`
	Params map[string]any `json:"params"`
	Status string         `json:"status"`
	Error  string         `json:"error"`
	Forced bool           `json:"forced"`
}

// promotions reads the promotion journal (none when absent).
func (s *Server) promotions() []promotion {
	f, err := os.Open(filepath.Join(s.o.Store.Dir, runs.PromotionsFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []promotion
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var p promotion
		if json.Unmarshal(sc.Bytes(), &p) == nil && p.Status != "pending" {
			out = append(out, p)
		}
	}
	return out
}

// promotedTrials maps a run id to the trial last promoted from it.
func (s *Server) promotedTrials() map[string]string {
	out := map[string]string{}
	for _, p := range s.promotions() {
		if p.Action == "promote" && p.Status == "ok" {
			out[p.Run] = p.Trial
		}
	}
	return out
}

// column is one sortable leaderboard column.
type column struct {
	Key, Label string
	Link       string // the URL sorting by it
	Sorted     string // "▲", "▼" or ""
}

// lbRow is one leaderboard entry as the run page shows it, formatted
// (the template only places strings: a 200-trial page stays cheap).
type lbRow struct {
	Rank int
	// Name is the trial's (links and data-trial use it), Label the name it
	// is shown under (runs.Leaderboard.Labels).
	Name, Label, ParamText string
	Primary, Delta, Sig    string
	Status                 string
	Cells                  []string // one per metric column
	Cats                   []string // one per category column
	CompareHref, MicroHref string   // "" for a trial that did not succeed
}

type runData struct {
	ID       string
	Manifest runs.Manifest
	LB       runs.Leaderboard
	Columns  []column
	CatCols  []string
	Rows     []lbRow
	Filter   string
	ShowCats bool
	Notes    []string
	Gates    *runs.Gates
	Promos   []promotion
	Best     string
	Chart    barChart
	// ParamCharts are the varied parameters' charts: primary by value
	// (the static report's, runs/chart).
	ParamCharts []chart.Param
}

// runPage shows one run: its leaderboard sorted and filtered as asked,
// the decision line, gates and promotions.
func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	run, err := s.o.Store.Resolve(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	lb, err := run.ReadLeaderboard()
	if err != nil {
		s.fail(w, http.StatusNotFound, fmt.Errorf("run %s has no leaderboard yet: %w", run.ID(), err))
		return
	}
	d := runData{ID: run.ID(), Manifest: run.Manifest, LB: lb, Filter: r.FormValue("filter"), ShowCats: r.FormValue("cats") == "1", Notes: lb.Notes()}
	if best, ok := lb.Best(); ok {
		d.Best = best.Name
	}
	if g, ok, err := run.ReadGates(); err == nil && ok {
		d.Gates = &g
	}
	for _, p := range s.promotions() {
		if p.Run == run.ID() {
			d.Promos = append(d.Promos, p)
		}
	}
	key, desc := r.FormValue("sort"), r.FormValue("desc") == "1"
	keys := append([]string{"rank", "name", "primary", "delta"}, lb.Metrics...)
	if !slices.Contains(keys, key) {
		key, desc = "rank", false
	}
	d.CatCols = categoryColumns(lb.Trials)
	labels := lb.Labels()
	entries := filterEntries(lb.Trials, labels, d.Filter)
	sortEntries(entries, key, desc)
	d.Columns = sortColumns(run.ID(), keys, key, desc, d.Filter, d.ShowCats, lb.Measure())
	against := lb.Baseline
	if against == "" {
		against = d.Best
	}
	for _, e := range entries {
		row := newLBRow(run.ID(), against, e, lb.Metrics, d.CatCols, d.ShowCats)
		row.Label = labels[e.Name]
		d.Rows = append(d.Rows, row)
	}
	d.Chart = primaryChart(lb.Trials)
	d.ParamCharts = chart.Params(lb)
	s.render(w, "run", "Run "+run.ID(), d)
}

// categoryColumns is every category a trial has a score in, sorted.
func categoryColumns(trials []runs.Entry) []string {
	cats := map[string]bool{}
	for _, e := range trials {
		for c := range e.Categories {
			cats[c] = true
		}
	}
	var out []string
	for c := range cats {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// sortColumns are the leaderboard's sortable column headers for the run
// sorted by key (desc: descending), the primary score's named by its
// measure: each links to the page sorted by it, keeping the filter and
// the category columns; a click on the sorted column reverses it, others
// sort ascending for rank and name, descending otherwise.
func sortColumns(runID string, keys []string, key string, desc bool, filter string, showCats bool, measure string) []column {
	var cols []column
	for _, k := range keys {
		label := k
		switch k {
		case "rank":
			label = "#"
		case "name":
			label = "trial"
		case "primary":
			label = "primary (" + measure + ")"
		case "delta":
			label = "Δ primary vs baseline"
		}
		c := column{Key: k, Label: label}
		nextDesc := k != "rank" && k != "name"
		if k == key {
			nextDesc = !desc
			c.Sorted = map[bool]string{false: "▲", true: "▼"}[desc]
		}
		c.Link = fmt.Sprintf("/run/%s?sort=%s&desc=%s&filter=%s&cats=%s", runID, k, b01(nextDesc), urlq(filter), b01(showCats))
		cols = append(cols, c)
	}
	return cols
}

// newLBRow is trial e's leaderboard row in run runID: its scores ("—"
// for those it lacks), with the categories' when showCats, and, when it
// succeeded, links comparing it with against and opening it in the
// microscope.
func newLBRow(runID, against string, e runs.Entry, metrics, cats []string, showCats bool) lbRow {
	row := lbRow{Rank: e.Rank, Name: e.Name, Label: e.Name, ParamText: paramText(e), Primary: fmt.Sprintf("%.4f", e.Primary),
		Delta: "—", Status: e.Status}
	if e.Delta != nil {
		row.Delta = fmt.Sprintf("%+.4f", *e.Delta)
	}
	if e.Mode != "" {
		row.Status += " (" + e.Mode + ")"
	}
	if e.Comparison != nil {
		row.Sig = e.Comparison.Mark
	}
	if e.Status == runs.StatusOK {
		row.CompareHref = "/compare?a=" + urlq(runID+":"+against) + "&b=" + urlq(runID+":"+e.Name)
		row.MicroHref = "/microscope?run=" + urlq(runID) + "&trial=" + urlq(e.Name)
	}
	for _, m := range metrics {
		if v, ok := e.Scorecard[m]; ok {
			row.Cells = append(row.Cells, fmt.Sprintf("%.4f", v))
		} else {
			row.Cells = append(row.Cells, "—")
		}
	}
	if showCats {
		for _, c := range cats {
			if v, ok := e.Categories[c]["primary"]; ok {
				row.Cats = append(row.Cats, fmt.Sprintf("%.4f", v))
			} else {
				row.Cats = append(row.Cats, "—")
			}
		}
	}
	return row
}

// reportPage renders the run's static report.
func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	run, err := s.o.Store.Resolve(r.PathValue("id"))
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := report.Render(w, run, report.DefaultOptions()); err != nil {
		s.fail(w, http.StatusInternalServerError, err)
	}
}

// filterEntries keeps the entries whose parameters match filter:
// space-separated terms, each "name=value" (a parameter of the trial
// equal to value, written exactly or rounded as the page shows it) or
// else a substring of the trial's name, label or parameters.
func filterEntries(es []runs.Entry, labels map[string]string, filter string) []runs.Entry {
	out := make([]runs.Entry, 0, len(es))
	terms := strings.Fields(filter)
next:
	for _, e := range es {
		text := e.Name + " " + labels[e.Name] + " " + paramText(e)
		for _, t := range terms {
			if k, v, ok := strings.Cut(t, "="); ok {
				if pv, has := e.Value(k); has {
					if paramtext.Exact(pv) != v && paramtext.Rounded(pv) != v && fmt.Sprint(pv) != v {
						continue next
					}
					continue
				}
			}
			if !strings.Contains(text, t) {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}

// sortEntries sorts es by key (rank, name, primary, delta or a metric),
// stably, ties by rank.
func sortEntries(es []runs.Entry, key string, desc bool) {
	val := func(e runs.Entry) float64 {
		switch key {
		case "rank":
			return float64(e.Rank)
		case "primary":
			return e.Primary
		case "delta":
			if e.Delta == nil {
				return -1e300
			}
			return *e.Delta
		}
		return e.Scorecard[key]
	}
	sort.SliceStable(es, func(i, j int) bool {
		if key == "name" {
			if desc {
				return es[i].Name > es[j].Name
			}
			return es[i].Name < es[j].Name
		}
		a, b := val(es[i]), val(es[j])
		if a == b {
			return es[i].Rank < es[j].Rank
		}
		if desc {
			return a > b
		}
		return a < b
	})
}

// paramText is a trial's parameters as "k=v k=v", sorted by name, values
// rounded for reading (a sampled weight 0.974), then those it leaves
// unset at the backend's default it runs on ("fusion.k=60 (default)").
func paramText(e runs.Entry) string {
	parts := make([]string, 0, len(e.Params)+len(e.Defaults))
	for _, k := range slices.Sorted(maps.Keys(e.Params)) {
		parts = append(parts, k+"="+paramtext.Rounded(e.Params[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Defaults)) {
		parts = append(parts, k+"="+paramtext.Rounded(e.Defaults[k])+" (default)")
	}
	return strings.Join(parts, " ")
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// urlq escapes a query value.
func urlq(s string) string { return url.QueryEscape(s) }
